import { describe, expect, it } from "vitest"
import { brokenContracts, reportLongSession, runLongSession } from "./long-session-probe.js"

/**
 * Fault probe, fast part: a long session whose pins alone overflow their budget many times over
 * (1,000 messages, ~270k tokens, 500 distinct user directives) lands under the execute threshold after its emergency
 * pass, the pinned ledger never exceeds its budget, every drain pass frees the minimum, and every pin of an episode
 * the history shows is in it verbatim. At 168k (Claude's usable window) every pin stays visible; at 32k the oldest
 * episodes do not fit even at their anchors and are omitted, saying so. The 20,000-message run is
 * `long-session.slow.test.ts`.
 */
describe("a 1,000-message session", () => {
  it.each([
    ["168k window", 168_000],
    ["32k window", 32_000],
  ])("holds the long-session contracts in a %s", async (name, usableTokens) => {
    const run = await runLongSession({ messageCount: 1_000, usableTokens, laterPasses: 12 })
    reportLongSession(`long session: 1,000 messages, ${name}`, run)
    expect(brokenContracts(run)).toEqual([])
    expect(run.emergency.afterPercent).toBeLessThan(run.thresholdPercent)
    expect(Math.max(...[run.emergency, ...run.later].map((pass) => pass.ledgerTokens))).toBeLessThanOrEqual(run.pinBudgetTokens)
    expect(run.pins.missing).toEqual([])
    if (usableTokens === 168_000) {
      // The ledger is over its budget ~4 times: the older pins live in their episodes, and every one is still shown.
      expect(run.omittedCompartments).toBe(0)
      expect(run.pins.shown).toBe(run.pins.total)
    }
  })

  it("gives the same history bytes for the same session", async () => {
    const first = await runLongSession({ messageCount: 200, usableTokens: 32_000, laterPasses: 2 })
    const second = await runLongSession({ messageCount: 200, usableTokens: 32_000, laterPasses: 2 })
    expect(second.historyText).toBe(first.historyText)
    expect(first.historyText.length).toBeGreaterThan(0)
  })
})
