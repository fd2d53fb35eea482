import type { Tier } from "./fidelity-types.js"
import { ledgerLines, numberAfter, pinLine, withEpisodePins, type PinnedFact } from "./pinned-ledger.js"
import { IDENTIFIERS_LABEL, INVARIANT_LABEL } from "./render-tiers.js"
import { recalledSection, type RecalledLine } from "./recalled-lines.js"
import type { WorkingSet } from "./working-set.js"

/** The history's headings and end, which the status report reads back (status/measure-history.ts). */
export const EPISODES_HEADING = "## Episodes (oldest first)"
export const HISTORY_CLOSE = "</session-history>"
export const WORKING_SET_HEADING = "## Working set"
/** How the line about episodes left out of the history begins. */
export const OMITTED_PREFIX = "(Not shown:"

/**
 * One compartment as rendered into the history, at its selected tier, with the pins the full ledger condensed into
 * it (`pins`, rendered verbatim after its text).
 */
export type RenderedCompartment = { id: string; tier: Tier; text: string; pins?: readonly PinnedFact[] }

/** Episodes the history leaves out because even at their least detail they did not fit the window (oldest first). */
export type OmittedEpisodes = {
  count: number
  first: string
  last: string
  firstTag: number | null
  lastTag: number | null
}

/**
 * The history text that replaces folded conversation at the start of the prompt, stable-first: each compartment at
 * its selected tier with its condensed pins, oldest first (after the line about omitted episodes, if any), an
 * identifier listed only by the first episode that lists it and an invariant the ledger or the episode's pins already
 * say left out; then what changes at nearly every execute pass, the pinned ledger (the newest pins that fit its budget,
 * verbatim, oldest first; `condensedPins` says how many older ones their episodes carry) and the working set. So an
 * execute pass that only adds episodes leaves every older one byte-identical ahead of its first change, and the
 * provider's prompt cache serves them (DESIGN "Cost-aware timing"). Pure and stable: the same inputs give the same
 * bytes, with or without `memo`.
 */
export function composeHistory(options: {
  workingSet: WorkingSet
  pins: readonly PinnedFact[]
  compartments: readonly RenderedCompartment[]
  condensedPins?: number
  omitted?: OmittedEpisodes | null
  /** The search of an earlier composition (`pinSearch(pins)`), its answers reused while the ledger's texts are the same. */
  pinSearch?: PinSearch
  /** The episodes of the last composition made with this memo: its leading episodes that are the same are reused. */
  memo?: EpisodeMemo
  /** Source lines of condensed episodes the recent conversation names again (`recallByReference`). */
  recalled?: readonly RecalledLine[]
}): string {
  const { workingSet, pins, compartments } = options
  const lines = ["<session-history>", "Earlier parts of this session, condensed by magic-context. The raw transcript is kept; ctx_expand brings any episode back in full."]
  const omitted = options.omitted ?? null
  if (compartments.length > 0 || omitted !== null) {
    lines.push("", EPISODES_HEADING)
    if (omitted !== null) lines.push("", omittedLine(omitted))
    const ledger = pinSearch(pins, options.pinSearch)
    const { episodes, listed } = reusedEpisodes(options.memo, ledger.joined, compartments)
    for (const episode of episodes) lines.push("", episode.piece)
    for (const compartment of compartments.slice(episodes.length)) {
      const own = compartment.pins ?? []
      const ownSearch = own.length === 0 ? null : pinSearch(own)
      const says =
        pins.length === 0 && ownSearch === null
          ? null
          : (line: string): boolean => (pins.length > 0 && pinsSay(ledger, line)) || (ownSearch !== null && pinsSay(ownSearch, line))
      const fresh: string[] = []
      const piece = withEpisodePins(withoutListedIdentifiers(withoutPinnedInvariant(compartment.text, says), listed, fresh), own)
      episodes.push({ compartment, piece, fresh })
      lines.push("", piece)
    }
    if (options.memo) Object.assign(options.memo, { ledger: ledger.joined, episodes, listed })
  }
  const ledger = ledgerLines(pins, options.condensedPins ?? 0)
  if (ledger.length > 0) lines.push("", ...ledger)
  const recalled = recalledSection(options.recalled ?? [])
  if (recalled.length > 0) lines.push("", ...recalled)
  lines.push("", WORKING_SET_HEADING)
  if (workingSet.objective) lines.push(`Current objective (user's words): ${workingSet.objective}`)
  if (workingSet.filesModified.length > 0) {
    const earlier = workingSet.earlierFilesModified > 0 ? ` (and ${workingSet.earlierFilesModified} modified earlier)` : ""
    lines.push(`Files modified: ${workingSet.filesModified.join(", ")}${earlier}`)
  }
  if (workingSet.openTodos.length > 0) lines.push(`Open todos: ${workingSet.openTodos.map((todo) => `[ ] ${todo}`).join("; ")}`)
  if (workingSet.lastFailure) lines.push(`Last failure: ${workingSet.lastFailure.command} -> ${workingSet.lastFailure.error}`)
  lines.push(HISTORY_CLOSE)
  return lines.join("\n")
}

/**
 * What a composition's episodes came to, for the next composition: each episode's piece (its text as composed) and the
 * identifiers it listed first, and all identifiers listed. An execute pass that adds episodes or changes a few tiers
 * leaves most leading episodes as they were: those are not composed again (an episode's piece depends only on its own
 * text and pins, the ledger, and the identifiers the episodes before it listed).
 */
export type EpisodeMemo = { ledger: string; episodes: ComposedEpisode[]; listed: Set<string> }

type ComposedEpisode = { compartment: RenderedCompartment; piece: string; fresh: readonly string[] }

/** An empty memo, for `composeHistory`'s `memo`. */
export function episodeMemo(): EpisodeMemo {
  return { ledger: "", episodes: [], listed: new Set() }
}

/**
 * The memo's leading episodes that `compartments` starts with (while the ledger says the same), and the identifiers
 * those listed. Takes them out of the memo: a composition that throws halfway leaves the memo empty, not half-updated.
 */
function reusedEpisodes(memo: EpisodeMemo | undefined, ledger: string, compartments: readonly RenderedCompartment[]): { episodes: ComposedEpisode[]; listed: Set<string> } {
  if (memo === undefined || memo.ledger !== ledger) return { episodes: [], listed: new Set() }
  const { episodes, listed } = memo
  Object.assign(memo, episodeMemo())
  let same = 0
  while (same < episodes.length && same < compartments.length && sameEpisode(episodes[same] as ComposedEpisode, compartments[same] as RenderedCompartment)) same += 1
  for (const episode of episodes.slice(same)) for (const identifier of episode.fresh) listed.delete(identifier)
  episodes.length = same
  return { episodes, listed }
}

function sameEpisode(episode: ComposedEpisode, compartment: RenderedCompartment): boolean {
  const before = episode.compartment
  if (before === compartment) return true
  if (before.id !== compartment.id || before.tier !== compartment.tier || before.text !== compartment.text) return false
  const pins = compartment.pins ?? []
  const pinsBefore = before.pins ?? []
  return pins.length === pinsBefore.length && pins.every((pin, index) => pinLine(pin) === pinLine(pinsBefore[index] as PinnedFact))
}

/**
 * Answers "does a pin say this line?" for a set of pins: their texts joined by newlines, where a line (which holds no
 * newline) occurs exactly when it occurs in one of the pins, with the answers so far. A caller that composes again and
 * again keeps one (`composeHistory`'s `pinSearch`): while the ledger is the same, each line is searched for once.
 */
export type PinSearch = { joined: string; answers: Map<string, boolean> }

/** The search over `pins`: `previous` while it was made from the same texts, else a new one. */
export function pinSearch(pins: readonly PinnedFact[], previous?: PinSearch): PinSearch {
  const joined = pins.map((pin) => pin.text).join("\n")
  return previous !== undefined && previous.joined === joined ? previous : { joined, answers: new Map() }
}

/** True when one of the pins says `line`. */
export function pinsSay(search: PinSearch, line: string): boolean {
  const known = search.answers.get(line)
  if (known !== undefined) return known
  const answer = search.joined.includes(line)
  search.answers.set(line, answer)
  return answer
}

/** How the dense and compact tiers state the episode's critical invariant. */
const INVARIANT_PREFIX = `${INVARIANT_LABEL}: `

/**
 * A compartment's text without its `Invariant:` line when the pinned ledger above already says it word for word (the
 * invariant is a sentence of one of the episode's constraints, and constraints are pinned): said once, not per
 * episode. A shortened invariant (ending in "…") counts as said when its text before the ellipsis is.
 */
export function withoutPinnedInvariant(text: string, says: ((line: string) => boolean) | null): string {
  if (says === null || !text.includes(`\n${INVARIANT_PREFIX}`)) return text
  return rewriteLines(text, INVARIANT_PREFIX, (line) => (says(line.slice(INVARIANT_PREFIX.length).replace(/…$/, "")) ? null : undefined))
}

/** How a tier lists its identifiers. */
const IDENTIFIERS_PREFIX = `${IDENTIFIERS_LABEL}: `

/**
 * A compartment's text with the identifiers an older episode already listed taken out of its `Identifiers:` line
 * (the line goes when none is left), adding the rest to `listed`. Each identifier stays in the history word for word,
 * under the episode that first named it; an older episode's text never changes when a newer one arrives.
 */
function withoutListedIdentifiers(text: string, listed: Set<string>, added: string[]): string {
  return rewriteLines(text, IDENTIFIERS_PREFIX, (line) => {
    const items = line.slice(IDENTIFIERS_PREFIX.length).split(", ")
    // An identifier that itself holds ", " (a signature) would split into pieces: leave such a line as it is.
    if (!items.every(isBalanced)) return undefined
    const fresh = items.filter((identifier) => !listed.has(identifier))
    for (const identifier of fresh) {
      listed.add(identifier)
      added.push(identifier)
    }
    if (fresh.length === items.length) return undefined
    return fresh.length === 0 ? null : `${IDENTIFIERS_PREFIX}${fresh.join(", ")}`
  })
}

/**
 * `text` with each line that starts with `prefix` rewritten, top to bottom: `rewrite` returns the new line, null to
 * remove it, or undefined to keep it. The same as splitting into lines, mapping and joining, but only the lines
 * that start with `prefix` are visited and the rest is sliced in runs (an episode's FULL source is long: splitting it
 * into lines at every execute pass cost more than the rest of composing).
 */
export function rewriteLines(text: string, prefix: string, rewrite: (line: string) => string | null | undefined): string {
  const marker = `\n${prefix}`
  const first = text.startsWith(prefix) ? 0 : text.indexOf(marker) + 1
  if (first === 0 && !text.startsWith(prefix)) return text
  const out: string[] = []
  let runStart = 0
  let changed = false
  for (let start = first; ; ) {
    const newline = text.indexOf("\n", start)
    const end = newline === -1 ? text.length : newline
    const replaced = rewrite(text.slice(start, end))
    if (replaced !== undefined) {
      changed = true
      if (start > runStart) out.push(text.slice(runStart, start - 1))
      if (replaced !== null) out.push(replaced)
      runStart = end + 1
    }
    const next = newline === -1 ? -1 : text.indexOf(marker, end)
    if (next === -1) break
    start = next + 1
  }
  if (!changed) return text
  if (runStart <= text.length) out.push(text.slice(runStart))
  return out.join("\n")
}

function isBalanced(item: string): boolean {
  const count = (pattern: RegExp): number => item.match(pattern)?.length ?? 0
  return (
    count(/\(/g) === count(/\)/g) &&
    count(/\[/g) === count(/\]/g) &&
    count(/\{/g) === count(/\}/g) &&
    count(/"/g) % 2 === 0 &&
    count(/`/g) % 2 === 0
  )
}

/** How many episodes a history says it left out (0 when it says none). */
export function omittedEpisodesOf(historyText: string): number {
  return numberAfter(historyText, `${EPISODES_HEADING}\n\n${OMITTED_PREFIX} `)
}

function omittedLine(omitted: OmittedEpisodes): string {
  const { firstTag, lastTag } = omitted
  const tags = firstTag !== null && lastTag !== null ? ` (§${firstTag}§–§${lastTag}§)` : ""
  const episodes = omitted.count === 1 ? "1 earlier episode" : `${omitted.count} earlier episodes`
  return (
    `${OMITTED_PREFIX} ${episodes} from ${omitted.first} to ${omitted.last}${tags}: even at their least detail they ` +
    `did not fit the window. The raw transcript keeps them; ctx_expand brings one back, e.g. "${omitted.first}".)`
  )
}
