import { inlinedFileRuns } from "../transcript/inlined-file-runs.js"
import { promptTokensOf, type Placement, type SessionState } from "../session/session-state.js"
import type { LiveItem, LiveView } from "../session/live-view.js"
import { sameLeadingFacts, type LiveFacts } from "../session/live-facts.js"
import { leading } from "../session/leading.js"
import { isFinalPart, type HostMessage } from "../transcript/host-message.js"
import { listTrackables, type Trackable } from "../transcript/trackables.js"
import { dropMarker, editedPath, itemLabel } from "./markers.js"
import { nudgedMessages } from "./render-prompt.js"
import { droppedInput } from "./render-item.js"
import { renderedSteers } from "./inserted-messages.js"
import { isPrunedTool, stableJson } from "../transcript/part-content.js"
import type { MessageSums, RenderCaches } from "./render-caches.js"

/**
 * Where the tokens of a rendered prompt go (seed: "Where a pass lands"): the fixed prompt, compartment history,
 * settled conversation, the protected recent window, tool output; `reclaimable` is the part of `tool` that
 * reclaim or ctx_reduce could take now, and `tags` the part of everything spent on `§N§` prefixes.
 */
export type Breakdown = {
  total: number
  fixed: number
  history: number
  conversation: number
  protected: number
  tool: number
  reclaimable: number
  tags: number
}

/** Counts short rendered strings (markers, reminders); callers memoize, since the same strings recur every pass. */
export type CountText = (text: string) => number

/**
 * Measures the prompt a render produces from stored counts: every part's count was made at ingest, prefixes at
 * tag creation, so only markers and reminders (short, memoized by the caller) are counted here. Never
 * re-tokenizes message content.
 */
export function measurePrompt(options: {
  /** The host's messages (the view holds the live ones; steer messages need the whole list). */
  messages: readonly HostMessage[]
  state: SessionState
  /**
   * The live view built from `state`: each message is measured from its facts, and measured once for as long as
   * its facts are the same object (the view's memo keeps them while the message and its records are unchanged).
   */
  view: LiveView
  tagsVisible: boolean
  placements: readonly Placement[]
  fixedTokens: number
  /** The view's items reclaim or ctx_reduce could take now (`reclaimableItems`). */
  reclaimable: readonly LiveItem[]
  count: CountText
  /** The session's render caches: a message measures once while its facts are the same object. */
  caches: RenderCaches
}): Breakdown {
  const { state, view, placements, count, tagsVisible } = options
  const { runningSums } = options.caches
  const breakdown: Breakdown = {
    total: 0,
    fixed: options.fixedTokens,
    // The history message is rendered only in place of folded messages the host still sends.
    history: view.foldedCount > 0 ? (state.applied.history?.tokens ?? 0) : 0,
    conversation: 0,
    protected: 0,
    tool: 0,
    reclaimable: 0,
    tags: 0,
  }
  const nudgeTokens = new Map<string, number>()
  for (const placement of placements) {
    if (placement.kind === "nudge") nudgeTokens.set(placement.anchorId, (nudgeTokens.get(placement.anchorId) ?? 0) + count(`\n\n${placement.text}`))
  }
  const nudged = nudgedMessages(state, nudgeTokens)

  // The sums of the live messages before each one; the leading messages measured last time as they are keep theirs.
  const nudgeKey = [...nudgeTokens].join(";")
  const last = runningSums.get(state.parts)
  const same = last !== undefined && last.tagsVisible === tagsVisible && last.nudgeKey === nudgeKey
  const reused = sameLeadingFacts(same ? last.facts : null, view.facts)
  // The last sums, when every message they cover measures as it did, are this measure's to go on from (only measures
  // read them, and a later one reads no further than its own facts; entries past them are never read).
  const tool = last && reused > 0 ? leading(last.tool, reused + 1, true) : [0]
  const other = last && reused > 0 ? leading(last.other, reused + 1, true) : [0]
  const tags = last && reused > 0 ? leading(last.tags, reused + 1, true) : [0]
  for (let index = reused; index < view.messages.length; index += 1) {
    const sums = factSums(options, view.messages[index] as HostMessage, view.facts[index], nudgeTokens, nudged)
    tool.push((tool[index] ?? 0) + sums.tool)
    other.push((other[index] ?? 0) + sums.other)
    tags.push((tags[index] ?? 0) + sums.tags)
  }
  if (view.facts.length === view.messages.length) runningSums.set(state.parts, { facts: view.facts, tagsVisible, nudgeKey, tool, other, tags })
  const live = view.messages.length
  const before = Math.min(view.protectedFrom, live)
  breakdown.tags = tags[live] ?? 0
  breakdown.tool = tool[before] ?? 0
  breakdown.conversation = other[before] ?? 0
  breakdown.protected = (tool[live] ?? 0) - breakdown.tool + (other[live] ?? 0) - breakdown.conversation
  breakdown.reclaimable = reclaimableSum(options.reclaimable, tagsVisible, options.caches)
  for (const placement of renderedSteers({ messages: options.messages, state, placements })) {
    breakdown.protected += count(placement.text)
  }
  breakdown.total = breakdown.fixed + breakdown.history + breakdown.conversation + breakdown.protected + breakdown.tool
  return breakdown
}

type MeasureOptions = Parameters<typeof measurePrompt>[0]

/** The tokens of the reclaimable items as rendered, once per list of them and tag visibility (`reclaimableSums`). */
function reclaimableSum(reclaimable: readonly LiveItem[], tagsVisible: boolean, caches: RenderCaches): number {
  const known = caches.reclaimableSums.get(reclaimable)
  if (known?.tagsVisible === tagsVisible) return known.tokens
  let tokens = 0
  for (const item of reclaimable) {
    if (item.tag.status !== "live") continue
    // The prefix shows on a finished output the host did not prune (see messageSums).
    const prefix = tagsVisible && item.final && !item.pruned ? item.tag.prefixTokens : 0
    tokens += item.contentTokens + item.callTokens + prefix
  }
  caches.reclaimableSums.set(reclaimable, { tagsVisible, tokens })
  return tokens
}

/**
 * `messageSums`, from the caches' `measuredFacts` while it holds for the message's facts: facts are the same object
 * while the message and its stored records are (the view's memo keeps them), so a message is measured again only when
 * one of those, the tag visibility or its reminders change.
 */
function factSums(
  options: MeasureOptions,
  message: HostMessage,
  fact: LiveFacts | undefined,
  nudgeTokens: ReadonlyMap<string, number>,
  nudged: ReadonlySet<string> | null,
): MessageSums {
  if (!fact) return messageSums(options, message, listTrackables(message), nudgeTokens)
  let nudges = ""
  if (nudgeTokens.size > 0 && (nudged === null || nudged.has(message.info.id))) {
    fact.trackables.forEach((trackable, index) => {
      const tokens = nudgeTokens.get(trackable.partId)
      if (tokens !== undefined) nudges += `${index}:${tokens};`
    })
  }
  const cached = options.caches.measuredFacts.get(fact)
  if (cached && cached.tagsVisible === options.tagsVisible && cached.nudges === nudges) return cached.sums
  const sums = messageSums(options, message, fact.trackables, nudgeTokens)
  options.caches.measuredFacts.set(fact, { tagsVisible: options.tagsVisible, nudges, sums })
  return sums
}

function messageSums(
  options: MeasureOptions,
  message: HostMessage,
  trackables: readonly Trackable[],
  nudgeTokens: ReadonlyMap<string, number>,
): MessageSums {
  const { state, tagsVisible, count } = options
  const sums: MessageSums = { tool: 0, other: 0, tags: 0 }
  const tokensByPart = new Map<string, { tokens: number; isTool: boolean }>()
  for (const part of message.parts) {
    const known = state.parts.get(part.id)
    const isTool = part.type === "tool" || known?.kind === "file" || part.type === "file"
    tokensByPart.set(part.id, { tokens: promptTokensOf(known), isTool })
  }
  for (const trackable of trackables) {
    const tag = state.tagsByPart.get(trackable.partId)
    if (!tag) continue
    const carrier = trackable.render.partId
    if (tag.status === "live") {
      const part = message.parts.find((candidate) => candidate.id === trackable.partId)
      // The model sees no prefix on an unfinished tool, and neither prefix nor reminder on an output OpenCode pruned
      // (it sends its own marker; see renderPrompt).
      const pruned = part?.type === "tool" && isPrunedTool(part)
      const finished = part === undefined || (isFinalPart(part) && !pruned)
      const prefix = tagsVisible && finished ? tag.prefixTokens : 0
      sums.tags += prefix
      add(tokensByPart, carrier, prefix + (pruned ? 0 : (nudgeTokens.get(trackable.partId) ?? 0)), trackable.kind !== "message")
      continue
    }
    const subject = message.parts.find((part) => part.id === trackable.partId)
    const marker = dropMarker({
      tag,
      label: itemLabel(tag, subject?.type === "file" ? (subject.filename ?? null) : null),
      tagsVisible,
      supersededPath: editedPath(subject),
    })
    const markerTokens = count(marker)
    if (trackable.kind === "tool") {
      const known = state.parts.get(trackable.partId)
      const input = subject?.type === "tool" ? droppedInput(tag, subject.state.input as Record<string, unknown>, editedPath(subject)) : null
      const call = input === null ? (known?.callTokens ?? 0) : count(`${tag.tool ?? ""} ${stableJson(input)}`)
      tokensByPart.set(trackable.partId, { tokens: call + markerTokens, isTool: true })
      continue
    }
    const covered = trackable.kind === "file" ? fileRunIds(message, trackable.partId) : messageTextIds(message)
    for (const id of covered) tokensByPart.set(id, { tokens: 0, isTool: trackable.kind === "file" })
    tokensByPart.set(carrier, { tokens: markerTokens, isTool: trackable.kind === "file" })
  }
  for (const { tokens, isTool } of tokensByPart.values()) {
    if (isTool) sums.tool += tokens
    else sums.other += tokens
  }
  return sums
}

function add(map: Map<string, { tokens: number; isTool: boolean }>, id: string, tokens: number, isTool: boolean): void {
  const entry = map.get(id)
  map.set(id, { tokens: (entry?.tokens ?? 0) + tokens, isTool: entry?.isTool ?? isTool })
}
/** The file part and the text parts its inlined content came in. */
function fileRunIds(message: HostMessage, filePartId: string): string[] {
  return [filePartId, ...(inlinedFileRuns(message.parts).get(filePartId) ?? []).map((part) => part.id)]
}

function messageTextIds(message: HostMessage): string[] {
  const inFiles = new Set([...inlinedFileRuns(message.parts).values()].flat().map((part) => part.id))
  return message.parts.filter((part) => part.type === "text" && !inFiles.has(part.id)).map((part) => part.id)
}
