/**
 * Pressure bands (seed: "Know what happens at each pressure band"). Percentages are of the usable,
 * output-reserved window. The force and emergency bands are not configurable.
 */
export type Band = "below" | "execute" | "force" | "emergency"

/** The force band starts at the greater of 85% and the execute threshold + 2 points. */
export const FORCE_FLOOR_PERCENT = 85
export const FORCE_MARGIN_POINTS = 2
/** From 95% (absolute) new work waits while the emergency drain frees context. */
export const EMERGENCY_PERCENT = 95
/** The drain ends once usage is at least this many points below the execute threshold ... */
export const DRAIN_EXIT_MARGIN_POINTS = 10
/** ... or when this safety latch expires. */
export const DRAIN_LATCH_MS = 30 * 60 * 1000

/** The usage (percent) at or under which the drain ends for a given execute threshold. */
export function drainExitPercent(thresholdPercent: number): number {
  return thresholdPercent - DRAIN_EXIT_MARGIN_POINTS
}

/** Where the force band starts for a given execute threshold (percent). */
export function forceBandStart(thresholdPercent: number): number {
  return Math.max(FORCE_FLOOR_PERCENT, thresholdPercent + FORCE_MARGIN_POINTS)
}

/** The band a usage falls in. */
export function classifyBand(options: { usagePercent: number; thresholdPercent: number }): Band {
  const { usagePercent, thresholdPercent } = options
  if (usagePercent >= EMERGENCY_PERCENT) return "emergency"
  if (usagePercent >= forceBandStart(thresholdPercent)) return "force"
  if (usagePercent >= thresholdPercent) return "execute"
  return "below"
}

/** Usage as a percentage of the usable window (0 when the window is unknown or empty). */
export function usagePercent(usageTokens: number, usableTokens: number): number {
  if (usableTokens <= 0) return 0
  return (usageTokens / usableTokens) * 100
}
