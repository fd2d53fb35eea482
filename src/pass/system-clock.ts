/** Wall time for records (`now`), and a timer for durations (`mark`, then `elapsedMs` since the mark). */
export type Clock = { now(): number; elapsedMs(since: number): number; mark(): number }

/** The real clock: wall time for records, a monotonic timer for durations. */
export const systemClock: Clock = {
  now: () => Date.now(),
  mark: () => performance.now(),
  elapsedMs: (since) => performance.now() - since,
}
