import type { Tier } from "../historian/fidelity-types.js"
import { OMITTED_REASON, YIELDED_REASON, type TierChoice } from "./select-tiers.js"

/** What the last prepared history would apply, for reports (replay, status, the Lab). */
export type HistoryReport = {
  /** Compartment display id -> selected tier (or "omitted"). */
  tiers: Record<string, Tier | "omitted">
  /** Compartments rendered below their floor (0 for the default policy by construction). */
  floorViolations: number
  /** Compartments whose tier differs from the one applied before (new compartments do not count). */
  switches: number
  historyTokens: number
  /** What the compartments were given: `history_budget`, or more where the landing line left room. */
  budgetTokens: number
  /** Tokens of the pinned ledger's section (never more than its budget). */
  pinTokens: number
  /** Older pins the full ledger condensed into their episodes (rendered there verbatim, in every tier). */
  condensedPins: number
  /** Compartments left out because even their least detailed tiers exceeded the ceiling, and the pins they held. */
  omittedCompartments: number
  hiddenPins: number
  /** Source lines recall by reference brought back into this history, and the tokens of their section. */
  recalledLines: number
  recalledTokens: number
  /** Choices of this history where floors newly yielded to the ceiling (only an emergency pass makes any). */
  newlyYielded: number
}

/** The report of a prepared history from its choices (one per compartment, in `displayIds`' order) and its counts. */
export function historyReport(options: {
  displayIds: readonly string[]
  choices: readonly TierChoice[]
  switches: number
  historyTokens: number
  budgetTokens: number
  pinTokens: number
  /** The pins the ledger condensed into their episodes. */
  condensed: readonly { compartmentId: string }[]
  recalled: { lines: number; tokens: number }
}): HistoryReport {
  const { choices, condensed } = options
  const omittedIds = new Set(choices.filter((choice) => choice.tier === "omitted").map((choice) => choice.id))
  return {
    tiers: Object.fromEntries(choices.map((choice, index) => [options.displayIds[index] as string, choice.tier])),
    floorViolations: choices.filter((choice) => choice.belowFloor).length,
    switches: options.switches,
    historyTokens: options.historyTokens,
    budgetTokens: options.budgetTokens,
    pinTokens: options.pinTokens,
    condensedPins: condensed.length,
    omittedCompartments: omittedIds.size,
    hiddenPins: condensed.filter((pin) => omittedIds.has(pin.compartmentId)).length,
    recalledLines: options.recalled.lines,
    recalledTokens: options.recalled.tokens,
    newlyYielded: choices.filter((choice) => choice.reason === YIELDED_REASON || choice.reason === OMITTED_REASON).length,
  }
}
