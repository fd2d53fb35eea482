import { recordFaultTally } from "./fault-table.js"

/** One probe's counts, gathered over the tests of a file and recorded once (call `record` in `afterAll`). */
export type ProbeTally = {
  /** A try starts (at the top of a test). */
  tried(): void
  /** The try held the contract (at the end of a test, after its last assertion). */
  survived(): void
  /** The try lost data (a message or row missing from the store): note it before asserting. */
  lost(): void
  record(): void
}

/** Creates the tally of probe `probe`; a test that fails before `survived()` counts as tried and not survived. */
export function probeTally(probe: string): ProbeTally {
  const counts = { tried: 0, survived: 0, lost: 0 }
  return {
    tried: () => void (counts.tried += 1),
    survived: () => void (counts.survived += 1),
    lost: () => void (counts.lost += 1),
    record: () => recordFaultTally({ probe, ...counts }),
  }
}
