import { describe, expect, it } from "vitest"
import { brokenContracts, reportLongSession, runLongSession } from "./long-session-probe.js"

/**
 * Fault probe, slow part (`npm run test:faults` only): sessions of 10,000 and 20,000 messages
 * (~2.7M and ~5.4M tokens, 5,000 and 10,000 distinct user directives) in Claude's 168k usable window. The emergency
 * pass lands under the execute threshold, the pinned ledger never exceeds its budget, every drain pass frees the
 * minimum, and every pin of an episode the history shows is in it verbatim.
 */
describe("a long session in a 168k window", () => {
  it.each([10_000, 20_000])("holds the long-session contracts at %i messages", async (messageCount) => {
    const run = await runLongSession({ messageCount, usableTokens: 168_000, laterPasses: 20 })
    reportLongSession(`long session: ${messageCount.toLocaleString("en-US")} messages, 168k window`, run)
    expect(brokenContracts(run)).toEqual([])
    expect(run.emergency.afterPercent).toBeLessThan(run.thresholdPercent)
    expect(run.pins.missing).toEqual([])
  })
})
