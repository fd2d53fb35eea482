import { TIERS, type Tier } from "../historian/fidelity-types.js"
import type { TurnMeasure } from "./run-metrics.js"

/** One model call of a replay as the report draws it: its prompt size and how many compartments sit at each tier. */
export type TurnPoint = { turn: number; tokens: number; tiers: Record<Tier, number> }

/** The report's view of a replay's calls, in order (no prompts kept). */
export function turnPoints(turns: readonly (TurnMeasure & { turn: number })[]): TurnPoint[] {
  return turns.map((turn) => ({ turn: turn.turn, tokens: turn.tokens.total, tiers: tierCounts(turn.history?.tiers ?? {}) }))
}

/** How many compartments are at each tier, every tier present (zero when none). */
export function tierCounts(tiers: Readonly<Record<string, string>>): Record<Tier, number> {
  const counts = Object.fromEntries(TIERS.map((tier) => [tier, 0])) as Record<Tier, number>
  for (const tier of Object.values(tiers)) {
    if ((TIERS as readonly string[]).includes(tier)) counts[tier as Tier] += 1
  }
  return counts
}
