import { EPISODES_HEADING, HISTORY_CLOSE, OMITTED_PREFIX, WORKING_SET_HEADING } from "../historian/compose-history.js"
import type { Tier } from "../historian/fidelity-types.js"
import { PINNED_HEADING } from "../historian/pinned-ledger.js"
import { RECALLED_HEADING } from "../historian/recalled-lines.js"
import type { ReplayTurn } from "../pass/replay-transcript.js"
import type { Breakdown } from "../render/measure-prompt.js"
import type { HostMessage, HostPart } from "../transcript/host-message.js"
import { partText, stableJson } from "../transcript/part-content.js"

/** What was said before the engine reduced it: an episode's messages, a dropped item's part (show-raw-records.ts). */
export type RawRecords = {
  /** The episode's source messages as text, by display id (`c12`); null when the store has no such episode. */
  episode(id: string): string | null
  /** The tagged part's own text (a tool's call and output), by tag; null when no part has that tag. */
  tag(tag: number): string | null
}

/** One episode of the history, at the tier the history shows it. */
export type ShownEpisode = {
  id: string
  tier: Tier
  /** The tag range the episode covers (`§40§–§57§`), "" when it has no tagged item. */
  tags: string
  /** The episode as the model reads it. */
  text: string
  raw: string | null
}

/** One part of a conversation message as the model reads it; `dropped` when a marker stands in its place. */
export type ShownPart = {
  kind: HostPart["type"]
  tag: number | null
  text: string
  dropped: { tag: number; marker: string; raw: string | null } | null
}

export type ShownMessage = { role: string; parts: ShownPart[] }

/** The history message of a prompt, taken apart: its episodes, the omitted line, the pinned ledger, the working set. */
export type ShownHistory = {
  episodes: ShownEpisode[]
  /** Episodes the store holds that this history leaves out (not even an anchor fitted), by display id. */
  omittedIds: string[]
  omitted: string | null
  ledger: string[]
  /** Source lines recall by reference brought back (`- c3 §12§: …`). */
  recalled: string[]
  workingSet: string[]
}

/** The prompt the engine sent at one model call, taken apart for reading. */
export type ShownPrompt = {
  turn: number
  pass: ReplayTurn["pass"]
  reason: string
  band: string
  usageBefore: number
  tokens: Breakdown
  history: ShownHistory | null
  conversation: ShownMessage[]
}

// A tool output or text part starts with its tag when tags are visible; a drop leaves a marker naming the tag.
const TAG_AT_START = /^§(\d+)§ /
const DROP_MARKER = /^\[(?:dropped|superseded) §(\d+)§[^\]]*\]$/

/**
 * Takes a replayed prompt apart: the history message (the first message, when it is one) into its episodes at the
 * tiers the planner applied (`turn.history`), the omitted line, the pinned ledger and the working set; every other
 * message into parts with their tags, a drop marker with the raw text it stands for. Pure.
 */
export function showPrompt(turn: ReplayTurn, raw: RawRecords): ShownPrompt {
  const [first, ...rest] = turn.prompt
  const historyText = first ? historyTextOf(first) : null
  return {
    turn: turn.turn,
    pass: turn.pass,
    reason: turn.reason,
    band: turn.band,
    usageBefore: turn.usageBefore,
    tokens: turn.tokens,
    history: historyText === null ? null : splitHistory(historyText, turn.history?.tiers ?? {}, raw),
    conversation: (historyText === null ? turn.prompt : rest).map((message) => ({
      role: message.info.role,
      parts: message.parts.flatMap((part) => shownPart(part, raw)),
    })),
  }
}

function historyTextOf(message: HostMessage): string | null {
  const part = message.parts[0]
  return message.info.role === "user" && part?.type === "text" && part.text.startsWith("<session-history>") ? part.text : null
}

/** Episode ids in their numeric order (`c2` before `c10`). */
function byEpisodeNumber(ids: readonly string[]): string[] {
  return [...ids].sort((a, b) => Number(a.slice(1)) - Number(b.slice(1)))
}

function splitHistory(text: string, tiers: Readonly<Record<string, string>>, raw: RawRecords): ShownHistory {
  const ids = byEpisodeNumber(Object.keys(tiers))
  const ledgerAt = text.indexOf(`\n\n${PINNED_HEADING}\n`)
  const recalledAt = text.indexOf(`\n\n${RECALLED_HEADING}\n`)
  const workingAt = text.lastIndexOf(`\n\n${WORKING_SET_HEADING}`)
  const episodesEnd = [ledgerAt, recalledAt, workingAt].find((at) => at >= 0) ?? text.length
  const starts = ids
    .filter((id) => tiers[id] !== "omitted")
    .map((id) => ({ id, at: headerAt(text, id) }))
    .filter((entry): entry is { id: string; at: number } => entry.at !== null && entry.at < episodesEnd)
    .sort((a, b) => a.at - b.at)
  const episodes = starts.map(({ id, at }, index) => {
    const block = text.slice(at, starts[index + 1]?.at ?? episodesEnd).replace(/\n+$/, "")
    const header = /^\[c\d+(?: (§\d+§–§\d+§))?\]/.exec(block)
    return { id, tier: tiers[id] as Tier, tags: header?.[1] ?? "", text: block, raw: raw.episode(id) }
  })
  const headingAt = text.indexOf(`${EPISODES_HEADING}\n\n${OMITTED_PREFIX}`)
  const omitted = headingAt >= 0 ? (text.slice(headingAt + EPISODES_HEADING.length + 2).split("\n")[0] ?? null) : null
  const ledgerEnd = [recalledAt, workingAt].find((at) => at > ledgerAt)
  const ledger = ledgerAt >= 0 ? text.slice(ledgerAt + 2, ledgerEnd).split("\n").slice(1) : []
  const recalled = recalledAt >= 0 ? text.slice(recalledAt + 2, workingAt > recalledAt ? workingAt : undefined).split("\n").filter((line) => line.startsWith("- ")) : []
  const working = workingAt >= 0 ? text.slice(workingAt + 2 + WORKING_SET_HEADING.length).split("\n") : []
  return {
    episodes,
    omittedIds: ids.filter((id) => tiers[id] === "omitted"),
    omitted,
    ledger: ledger.filter((line) => line.trim() !== ""),
    recalled,
    workingSet: working.filter((line) => line.trim() !== "" && line !== HISTORY_CLOSE),
  }
}

/** Where the episode's first line (`[c12 §40§–§57§]` or `[c12]`) starts a block of the history, or null. */
function headerAt(text: string, id: string): number | null {
  for (const header of [`\n\n[${id} §`, `\n\n[${id}]`]) {
    const at = text.indexOf(header)
    if (at >= 0) return at + 2
  }
  return null
}

function shownPart(part: HostPart, raw: RawRecords): ShownPart[] {
  if (part.type === "text") {
    if (part.ignored) return []
    return [withTag("text", part.text, raw)]
  }
  if (part.type === "reasoning") return [{ kind: "reasoning", tag: null, text: part.text, dropped: null }]
  if (part.type === "file") return [{ kind: "file", tag: null, text: `${part.filename ?? "file"} (${part.mime})`, dropped: null }]
  if (part.type === "tool") {
    const { content } = partText(part)
    const shown = withTag("tool", content, raw)
    return [{ ...shown, text: `${part.tool} ${stableJson(part.state.input)}\n${shown.text}` }]
  }
  const { content } = partText(part)
  return content === "" ? [] : [{ kind: part.type, tag: null, text: content, dropped: null }]
}

function withTag(kind: ShownPart["kind"], text: string, raw: RawRecords): ShownPart {
  const marker = DROP_MARKER.exec(text.trim())
  if (marker) {
    const tag = Number(marker[1])
    return { kind, tag, text, dropped: { tag, marker: text.trim(), raw: raw.tag(tag) } }
  }
  const tagged = TAG_AT_START.exec(text)
  return { kind, tag: tagged ? Number(tagged[1]) : null, text, dropped: null }
}
