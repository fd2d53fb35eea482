import type { Tier } from "./fidelity-types.js"
import { IDENTIFIERS_LABEL, INVARIANT_LABEL } from "./render-tiers.js"
import type { WorkingSet } from "./working-set.js"

/** The history's headings and end, which the status report reads back (status/measure-history.ts). */
export const PINNED_HEADING = "## Pinned (verbatim; these still apply)"
export const EPISODES_HEADING = "## Episodes (oldest first)"
export const HISTORY_CLOSE = "</session-history>"

/** One compartment as rendered into the history, at its selected tier. */
export type RenderedCompartment = { id: string; tier: Tier; text: string }

/** A pinned fact: rendered verbatim at every pressure. */
export type PinnedFact = { text: string; tags: number[] }

/**
 * The history text that replaces folded conversation at the start of the prompt: the working set, the pinned
 * ledger (the user's constraints and other pins, verbatim, oldest first), then each compartment at its selected
 * tier, oldest first, an identifier listed only by the first episode that lists it and an invariant the ledger
 * already says left out. Pure and stable: the same
 * inputs give the same bytes.
 */
export function composeHistory(options: {
  workingSet: WorkingSet
  pins: readonly PinnedFact[]
  compartments: readonly RenderedCompartment[]
  pinsOverBudget: boolean
}): string {
  const { workingSet, pins, compartments } = options
  const lines = ["<session-history>", "Earlier parts of this session, condensed by magic-context. The raw transcript is kept; ctx_expand brings any episode back in full."]
  lines.push("", "## Working set")
  if (workingSet.objective) lines.push(`Current objective (user's words): ${workingSet.objective}`)
  if (workingSet.filesModified.length > 0) lines.push(`Files modified: ${workingSet.filesModified.join(", ")}`)
  if (workingSet.openTodos.length > 0) lines.push(`Open todos: ${workingSet.openTodos.map((todo) => `[ ] ${todo}`).join("; ")}`)
  if (workingSet.lastFailure) lines.push(`Last failure: ${workingSet.lastFailure.command} -> ${workingSet.lastFailure.error}`)
  if (pins.length > 0) {
    lines.push("", PINNED_HEADING)
    if (options.pinsOverBudget) lines.push("(The pinned items exceed their budget; the user has been told. None is shortened.)")
    // Verbatim, also across lines (an exact match of the pinned text must find it), even where that breaks the list.
    for (const pin of pins) lines.push(`- ${tagList(pin.tags)}${pin.text}`)
  }
  if (compartments.length > 0) {
    lines.push("", EPISODES_HEADING)
    const listed = new Set<string>()
    for (const compartment of compartments) {
      lines.push("", withoutListedIdentifiers(withoutPinnedInvariant(compartment.text, pins), listed))
    }
  }
  lines.push(HISTORY_CLOSE)
  return lines.join("\n")
}

/** How the dense and compact tiers state the episode's critical invariant. */
const INVARIANT_PREFIX = `${INVARIANT_LABEL}: `

/**
 * A compartment's text without its `Invariant:` line when the pinned ledger above already says it word for word (the
 * invariant is a sentence of one of the episode's constraints, and constraints are pinned): said once, not per
 * episode. A shortened invariant (ending in "…") counts as said when its text before the ellipsis is.
 */
function withoutPinnedInvariant(text: string, pins: readonly PinnedFact[]): string {
  if (pins.length === 0 || !text.includes(`\n${INVARIANT_PREFIX}`)) return text
  return text
    .split("\n")
    .filter((line) => {
      if (!line.startsWith(INVARIANT_PREFIX)) return true
      const said = line.slice(INVARIANT_PREFIX.length).replace(/…$/, "")
      return !pins.some((pin) => pin.text.includes(said))
    })
    .join("\n")
}

/** How a tier lists its identifiers. */
const IDENTIFIERS_PREFIX = `${IDENTIFIERS_LABEL}: `

/**
 * A compartment's text with the identifiers an older episode already listed taken out of its `Identifiers:` line
 * (the line goes when none is left), adding the rest to `listed`. Each identifier stays in the history word for word,
 * under the episode that first named it; an older episode's text never changes when a newer one arrives.
 */
function withoutListedIdentifiers(text: string, listed: Set<string>): string {
  return text
    .split("\n")
    .flatMap((line) => {
      if (!line.startsWith(IDENTIFIERS_PREFIX)) return [line]
      const items = line.slice(IDENTIFIERS_PREFIX.length).split(", ")
      // An identifier that itself holds ", " (a signature) would split into pieces: leave such a line as it is.
      if (!items.every(isBalanced)) return [line]
      const fresh = items.filter((identifier) => !listed.has(identifier))
      for (const identifier of fresh) listed.add(identifier)
      return fresh.length === 0 ? [] : [`${IDENTIFIERS_PREFIX}${fresh.join(", ")}`]
    })
    .join("\n")
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

function tagList(tags: readonly number[]): string {
  return tags.length > 0 ? `§${tags[0]}§ ` : ""
}
