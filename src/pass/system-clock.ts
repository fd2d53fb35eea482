import type { Clock } from "./run-pass.js"

/** The real clock: wall time for records, a monotonic timer for durations. */
export const systemClock: Clock = {
  now: () => Date.now(),
  mark: () => performance.now(),
  elapsedMs: (since) => performance.now() - since,
}
