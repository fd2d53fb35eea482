import type { DrainState } from "../session/session-state.js"
import { DRAIN_LATCH_MS, drainExitPercent, type Band } from "./bands.js"

export type DrainTransition = "started" | "continued" | "ended-below-target" | "ended-latch" | "idle"

/**
 * The next drain state. A force or emergency band starts the drain (or keeps it); once active it ends only when
 * usage is at least DRAIN_EXIT_MARGIN_POINTS below the execute threshold (`drainExitPercent`), or when DRAIN_LATCH_MS
 * has passed.
 */
export function nextDrainState(options: {
  drain: DrainState
  band: Band
  usagePercent: number
  thresholdPercent: number
  now: number
}): { drain: DrainState; transition: DrainTransition } {
  const { drain, band, usagePercent, thresholdPercent, now } = options
  const pressured = band === "force" || band === "emergency"
  if (!drain.active) {
    if (!pressured) return { drain, transition: "idle" }
    return { drain: { active: true, startedAt: now }, transition: "started" }
  }
  if (now - drain.startedAt >= DRAIN_LATCH_MS && !pressured) return { drain: { active: false }, transition: "ended-latch" }
  if (now - drain.startedAt >= DRAIN_LATCH_MS) return { drain: { active: true, startedAt: now }, transition: "started" }
  if (usagePercent <= drainExitPercent(thresholdPercent)) {
    return { drain: { active: false }, transition: "ended-below-target" }
  }
  return { drain, transition: "continued" }
}
