import { FULL_CUT_NOTE } from "../historian/episode-full.js"
import type { Tier } from "../historian/fidelity-types.js"
import { recalledLine, type RecalledLine } from "../historian/recalled-lines.js"
import { referenceTerms, termFilter, termKey, type TermFilter, type TermKey } from "../historian/reference-terms.js"
import type { HostMessage } from "../transcript/host-message.js"
import { newestText } from "./newest-text.js"

/** How much of the newest protected conversation (texts and tool inputs) recall reads for references. */
export const RECALL_TAIL_CHARS = 8_000
/** A term in more episodes than this is not a reference to one of them. */
const MAX_TERM_EPISODES = 2
/** A line shorter than this (a brace, a blank label) is not worth recalling. */
const MIN_LINE_CHARS = 12
/** A recalled line is cut to this many characters: the line's start names the fact, `ctx_expand` gives the rest. */
const MAX_LINE_CHARS = 300
/** At most this many lines are recalled by one execute pass, however much room there is. */
const MAX_RECALLED_LINES = 16
/** The share of the compartments' budget recall may take (only what their tiers left unused). */
export const RECALL_BUDGET_SHARE = 0.1

/** An episode as recall reads it: its display id, the tier the history shows it at, and its basis. */
export type RecallEpisode = {
  displayId: string
  tier: Tier | "omitted"
  /** The episode's FULL text (its source as the model saw it), or undefined when it has none. */
  source(): string | undefined
  /** The text the history shows for it ("" when omitted). */
  shown(): string
  /** Stands for the episode's source in `filters` (its basis). */
  key: object
}

/**
 * Recall by reference: lines of episodes the history shows below FULL (or leaves out) whose rare terms the recent
 * conversation names again (a term the tail and at most two episodes contain weighs 1/episodes, shared among the
 * lines that hold it; a line is recalled from a score of 1), best first within `budgetTokens`, at most
 * MAX_RECALLED_LINES, returned in source order. An agent that
 * comes back to a flag, a path or a name from a page it read long ago finds the line again with its tag. Pure and
 * deterministic: the same episodes, tail and budget give the same lines.
 */
export function recallByReference(options: {
  episodes: readonly RecallEpisode[]
  tail: string
  budgetTokens: number
  count: (text: string) => number
  /** Each episode's term filter, by its key, kept while the episode stands. */
  filters: WeakMap<object, TermFilter>
}): RecalledLine[] {
  const { episodes, budgetTokens } = options
  if (budgetTokens <= 0 || episodes.length === 0) return []
  const filterOf = (episode: RecallEpisode): TermFilter => {
    const known = options.filters.get(episode.key)
    if (known !== undefined) return known
    const made = termFilter(episode.source() ?? "")
    options.filters.set(episode.key, made)
    return made
  }
  const filters = episodes.map(filterOf)
  const weights = new Map<string, number>()
  const keys: TermKey[] = []
  for (const term of referenceTerms(options.tail)) {
    const key = termKey(term)
    let holders = 0
    for (const filter of filters) {
      if (filter.has(key)) holders += 1
      if (holders > MAX_TERM_EPISODES) break
    }
    if (holders === 0 || holders > MAX_TERM_EPISODES) continue
    weights.set(term, 1 / holders)
    keys.push(key)
  }
  if (weights.size === 0) return []
  // The lines of the episodes that hold a referenced term, each with the referenced terms it holds.
  const lines: (RecalledLine & { terms: string[]; episodeIndex: number; lineIndex: number })[] = []
  const seen = new Set<string>()
  episodes.forEach((episode, episodeIndex) => {
    if (episode.tier === "full") return
    const filter = filters[episodeIndex] as TermFilter
    if (!keys.some((key) => filter.has(key))) return
    const source = episode.source()
    if (source === undefined) return
    const shown = episode.shown()
    let tag: number | null = null
    source.split("\n").forEach((raw, lineIndex) => {
      const tagged = /^§(\d+)§ /.exec(raw)
      if (tagged) tag = Number(tagged[1])
      const line = withoutLineNumber(raw.trim()).trim()
      if (line.length < MIN_LINE_CHARS || seen.has(line) || line.includes(FULL_CUT_NOTE) || shown.includes(line)) return
      const terms = [...referenceTerms(line)].filter((term) => weights.has(term))
      if (terms.length === 0) return
      seen.add(line)
      const text = line.length > MAX_LINE_CHARS ? `${line.slice(0, MAX_LINE_CHARS)}…` : line
      lines.push({ displayId: episode.displayId, tag, text, terms, episodeIndex, lineIndex })
    })
  })
  // A term on many lines points at none of them: each line gets its share of the term's weight.
  const linesWith = new Map<string, number>()
  for (const line of lines) for (const term of line.terms) linesWith.set(term, (linesWith.get(term) ?? 0) + 1)
  const candidates = lines
    .map((line) => ({ ...line, score: line.terms.reduce((sum, term) => sum + (weights.get(term) ?? 0) / (linesWith.get(term) ?? 1), 0) }))
    .filter((line) => line.score >= 1)
  const sourceOrder = (left: (typeof lines)[number], right: (typeof lines)[number]): number =>
    left.episodeIndex - right.episodeIndex || left.lineIndex - right.lineIndex
  candidates.sort((left, right) => right.score - left.score || sourceOrder(left, right))
  const chosen: typeof candidates = []
  let used = 0
  for (const candidate of candidates) {
    if (chosen.length === MAX_RECALLED_LINES) break
    const tokens = options.count(recalledLine(candidate))
    if (used + tokens > budgetTokens) continue
    used += tokens
    chosen.push(candidate)
  }
  return chosen.sort(sourceOrder).map(({ displayId, tag, text }) => ({ displayId, tag, text }))
}

/** A line of a read file without the number the read tool put before it (`12: `, `00012| `, `12→`): the same line twice is one. */
function withoutLineNumber(line: string): string {
  return line.replace(/^\d+(?::|\||→)\s*/, "")
}

/** A tool input value longer than this is content being written (an edit's code), not a reference to something. */
const MAX_REFERENCE_INPUT_CHARS = 200

/**
 * The last `chars` characters of what the conversation says, newest part last: user and assistant text, and the short
 * values of tool inputs (paths, commands, patterns, names), each on a line of its own.
 */
export function referenceTail(messages: readonly HostMessage[], chars: number): string {
  return newestText(messages, chars, (part) => {
    const text = part.type === "text" ? part.text : part.type === "tool" ? shortValues(part.state.input).join("\n") : ""
    return text === "" ? null : text
  })
}

/** The string and number leaves of a tool input up to MAX_REFERENCE_INPUT_CHARS, in key order. */
function shortValues(value: unknown): string[] {
  if (typeof value === "string") return value.length <= MAX_REFERENCE_INPUT_CHARS ? [value] : []
  if (typeof value === "number") return [String(value)]
  if (Array.isArray(value)) return value.flatMap(shortValues)
  if (value !== null && typeof value === "object") return Object.keys(value).sort().flatMap((key) => shortValues((value as Record<string, unknown>)[key]))
  return []
}
