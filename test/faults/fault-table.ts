import { appendFileSync } from "node:fs"

/** One fault probe's tally: how many times it was tried, survived (the contract held) and lost data or the turn. */
export type FaultTally = { probe: string; tried: number; survived: number; lost: number }

/**
 * Adds a probe's tally to the table `npm run test:faults` prints (the file named by MAGIC_CONTEXT_FAULT_TABLE, one
 * JSON line per tally). Without that variable (a plain `npm test`) nothing is written; the test's own assertions
 * are what fail a run, never the table.
 */
export function recordFaultTally(tally: FaultTally, env: Record<string, string | undefined> = process.env): void {
  const file = env["MAGIC_CONTEXT_FAULT_TABLE"]
  if (!file) return
  appendFileSync(file, `${JSON.stringify(tally)}\n`)
}
