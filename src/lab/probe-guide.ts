import type { SelectionGuide } from "../pass/history-planner.js"
import type { Probe } from "./probe-file.js"

/** How many source records ahead an episode counts as "about to become relevant" for the promotion condition. */
export const SOON_RECORDS = 40

/**
 * Tells the planner what the probes will need: the Lab's oracle keeps every compartment at the least detailed
 * tier that still carries the facts needed later, and the promotion condition marks the compartments whose facts
 * are needed within SOON_RECORDS as relevant again. `moveTo(turn)` is called before each replayed model call.
 */
export function createProbeGuide(probes: readonly Probe[]): SelectionGuide & { moveTo(turn: number): void } {
  let current = 0
  return {
    moveTo(turn) {
      current = turn
    },
    needed: () => probes.filter((probe) => probe.need !== null && probe.t < current && probe.need >= current).map((probe) => probe.exact),
    neededSoon: () =>
      probes
        .filter((probe) => probe.need !== null && probe.t < current && probe.need >= current && probe.need - current <= SOON_RECORDS)
        .map((probe) => probe.exact),
  }
}
