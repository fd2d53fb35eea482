import type { Tier } from "./fidelity-types.js"
import type { WorkingSet } from "./working-set.js"

/** One compartment as rendered into the history, at its selected tier. */
export type RenderedCompartment = { id: string; tier: Tier; text: string }

/** A pinned fact: rendered verbatim at every pressure. */
export type PinnedFact = { text: string; tags: number[] }

/**
 * The history text that replaces folded conversation at the start of the prompt: the working set, the pinned
 * ledger (the user's constraints and other pins, verbatim, oldest first), then each compartment at its selected
 * tier, oldest first. Pure and stable: the same inputs give the same bytes.
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
    lines.push("", "## Pinned (verbatim; these still apply)")
    if (options.pinsOverBudget) lines.push("(The pinned items exceed their budget; the user has been told. None is shortened.)")
    // Verbatim, also across lines (an exact match of the pinned text must find it), even where that breaks the list.
    for (const pin of pins) lines.push(`- ${tagList(pin.tags)}${pin.text}`)
  }
  if (compartments.length > 0) {
    lines.push("", "## Episodes (oldest first)")
    for (const compartment of compartments) lines.push("", compartment.text)
  }
  lines.push("</session-history>")
  return lines.join("\n")
}

function tagList(tags: readonly number[]): string {
  return tags.length > 0 ? `§${tags[0]}§ ` : ""
}
