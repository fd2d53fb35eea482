import { describe, expect, it } from "vitest"
import { decidePass, type DueWork, type PassDecision } from "../../src/pass/decide-pass.js"
import type { Band } from "../../src/pressure/bands.js"

type Situation = {
  band: Band
  drainActive?: boolean
  cacheExpired?: boolean
  midTool?: boolean
  /** The cost rule's verdict (execute-pays.ts); the work does not pay unless a test says so. */
  pays?: boolean
  work?: Partial<Omit<DueWork, "reclaim">> & { reclaim?: Partial<DueWork["reclaim"]> }
}

const MINIMUM = 1_000

function decide(situation: Situation): PassDecision {
  const work = situation.work ?? {}
  return decidePass({
    band: situation.band,
    drainActive: situation.drainActive ?? false,
    cacheExpired: situation.cacheExpired ?? false,
    midTool: situation.midTool ?? false,
    work: {
      landableDrops: work.landableDrops ?? 0,
      readyHistory: work.readyHistory ?? 0,
      reclaim: { age: 0, force: 0, emergency: 0, ...work.reclaim },
      smartDrops: work.smartDrops ?? 0,
      freedTokens: work.freedTokens ?? 0,
    },
    minimumFreed: MINIMUM,
    pays: situation.pays ?? false,
  })
}

const execute = (reason: PassDecision["reason"], reclaim: PassDecision["reclaim"]): PassDecision => ({
  decision: "execute",
  reason,
  reclaim,
  applyQueued: true,
})
const replay = (reason: PassDecision["reason"]): PassDecision => ({
  decision: "replay",
  reason,
  reclaim: null,
  applyQueued: false,
})

describe("decidePass", () => {
  it.each<[string, Situation, PassDecision]>([
    // 95% and above: protections yield, anything that can be freed is.
    [
      "emergency with reclaimable output",
      { band: "emergency", work: { reclaim: { emergency: 1 } } },
      execute("emergency", "emergency"),
    ],
    [
      "emergency with only a queued drop",
      { band: "emergency", work: { landableDrops: 1 } },
      execute("emergency", "emergency"),
    ],
    [
      "emergency with only ready history",
      { band: "emergency", work: { readyHistory: 1 } },
      execute("emergency", "emergency"),
    ],
    [
      "emergency with only smart drops",
      { band: "emergency", work: { smartDrops: 2 } },
      execute("emergency", "emergency"),
    ],
    [
      "emergency mid-tool",
      { band: "emergency", midTool: true, work: { reclaim: { emergency: 5 } } },
      execute("emergency", "emergency"),
    ],
    [
      "emergency with nothing to apply",
      { band: "emergency", drainActive: true, cacheExpired: true },
      replay("nothing-due"),
    ],
    // The force band: execute now, even mid-tool.
    [
      "force band with force reclaim",
      { band: "force", work: { reclaim: { force: 1 } } },
      execute("force-band", "force"),
    ],
    [
      "force band with only a queued drop",
      { band: "force", work: { landableDrops: 1 } },
      execute("force-band", "force"),
    ],
    ["force band with only smart drops", { band: "force", work: { smartDrops: 1 } }, execute("force-band", "force")],
    [
      "force band mid-tool",
      { band: "force", midTool: true, work: { reclaim: { force: 10 } } },
      execute("force-band", "force"),
    ],
    [
      "force band with only emergency-mode reclaim",
      { band: "force", drainActive: true, work: { reclaim: { age: 0, force: 0, emergency: 9_000 } } },
      replay("nothing-due"),
    ],
    ["force band with nothing to apply", { band: "force", cacheExpired: true }, replay("nothing-due")],
    // The emergency drain, below the force band: it executes only when the pass frees the minimum in all.
    [
      "a drain freeing more than the minimum",
      { band: "execute", drainActive: true, work: { reclaim: { force: 1_001 }, freedTokens: 1_001 } },
      execute("drain", "force"),
    ],
    [
      "a drain freeing exactly the minimum",
      { band: "execute", drainActive: true, work: { reclaim: { force: MINIMUM }, freedTokens: MINIMUM } },
      execute("drain", "force"),
    ],
    [
      "a drain freeing the minimum through the history fold alone",
      { band: "execute", drainActive: true, work: { readyHistory: 1, freedTokens: MINIMUM } },
      execute("drain", "force"),
    ],
    [
      "a drain freeing less than the minimum, with age reclaim waiting",
      { band: "execute", drainActive: true, work: { reclaim: { age: 800, force: 999 }, freedTokens: 999 } },
      replay("drain-below-minimum"),
    ],
    [
      "a drain freeing less than the minimum, with nothing else",
      { band: "execute", drainActive: true, work: { reclaim: { force: 999 }, freedTokens: 999 } },
      replay("drain-below-minimum"),
    ],
    [
      // Was the defect: ready history opened a rewrite on every pass of the drain, freeing 16-526 tokens.
      "a drain at the threshold whose ready history frees less than the minimum",
      { band: "execute", drainActive: true, work: { readyHistory: 1, freedTokens: 526 } },
      replay("drain-below-minimum"),
    ],
    [
      "a drain at the threshold whose queued drop frees less than the minimum",
      { band: "execute", drainActive: true, work: { landableDrops: 1, freedTokens: 999 } },
      replay("drain-below-minimum"),
    ],
    [
      "a drain below the threshold with a queued drop freeing the minimum",
      { band: "below", drainActive: true, work: { landableDrops: 1, freedTokens: MINIMUM } },
      execute("drain", "force"),
    ],
    [
      "a drain below the threshold with ready history freeing less than the minimum",
      { band: "below", drainActive: true, work: { readyHistory: 1, freedTokens: 16 } },
      replay("drain-below-minimum"),
    ],
    [
      // An expired cache costs the rewrite anyway: the band's own rules apply.
      "a drain freeing less than the minimum with an expired cache",
      { band: "execute", drainActive: true, cacheExpired: true, work: { readyHistory: 1, freedTokens: 16 } },
      execute("threshold-work", "age"),
    ],
    [
      // Only the force band bypasses mid-tool deferral; a drain continuing below it waits for the results.
      "a drain mid-tool",
      { band: "execute", drainActive: true, midTool: true, work: { reclaim: { force: 5_000 }, freedTokens: 5_000 } },
      replay("mid-tool-deferred"),
    ],
    [
      "a drain below the minimum below the threshold",
      { band: "below", drainActive: true, work: { reclaim: { force: 999 }, freedTokens: 999 } },
      replay("drain-below-minimum"),
    ],
    // At or above the threshold: work that opens a rewrite, or an expired cache with work to ride.
    [
      "threshold with a queued drop that pays",
      { band: "execute", pays: true, work: { landableDrops: 2, reclaim: { age: 300 } } },
      execute("threshold-work", "age"),
    ],
    [
      "threshold with ready history freeing the minimum that pays",
      { band: "execute", pays: true, work: { readyHistory: 1, freedTokens: MINIMUM } },
      execute("threshold-work", "age"),
    ],
    [
      // The same defect outside the drain: a new small compartment every turn opened a rewrite every turn.
      "threshold with only ready history freeing less than the minimum and a warm cache",
      { band: "execute", work: { readyHistory: 1, freedTokens: 526, reclaim: { age: 300 } } },
      replay("history-below-minimum"),
    ],
    [
      "threshold with ready history freeing less than the minimum and an expired cache",
      { band: "execute", cacheExpired: true, work: { readyHistory: 1, freedTokens: 16 } },
      execute("threshold-work", "age"),
    ],
    [
      // The agent's own drops open the rewrite (ctx_reduce refuses a call freeing under 500 tokens).
      "threshold with a queued drop and ready history freeing less than the minimum, paying",
      { band: "execute", pays: true, work: { landableDrops: 1, readyHistory: 1, freedTokens: 600 } },
      execute("threshold-work", "age"),
    ],
    [
      "threshold with opening work that pays mid-tool",
      { band: "execute", pays: true, midTool: true, work: { landableDrops: 1 } },
      replay("mid-tool-deferred"),
    ],
    [
      "threshold with only age reclaim and a warm cache",
      { band: "execute", work: { reclaim: { age: 5_000, force: 9_000 } } },
      replay("waiting-for-rebuild"),
    ],
    [
      "threshold with only smart drops and a warm cache",
      { band: "execute", work: { smartDrops: 3 } },
      replay("waiting-for-rebuild"),
    ],
    [
      "threshold with only age reclaim and an expired cache",
      { band: "execute", cacheExpired: true, work: { reclaim: { age: 300 } } },
      execute("cache-expired", "age"),
    ],
    [
      "threshold with only smart drops and an expired cache",
      { band: "execute", cacheExpired: true, work: { smartDrops: 1 } },
      execute("cache-expired", "age"),
    ],
    [
      "threshold with riding work, an expired cache, mid-tool",
      { band: "execute", cacheExpired: true, midTool: true, work: { reclaim: { age: 300 } } },
      replay("mid-tool-deferred"),
    ],
    [
      "threshold with only force reclaim (no age) and an expired cache",
      { band: "execute", cacheExpired: true, work: { reclaim: { force: 5_000, emergency: 9_000 } } },
      replay("nothing-due"),
    ],
    ["threshold with nothing and an expired cache", { band: "execute", cacheExpired: true }, replay("nothing-due")],
    ["threshold with nothing", { band: "execute" }, replay("nothing-due")],
    // The threshold is a must: work that does not pay for its break yet executes there all the same.
    [
      "threshold with a queued drop that does not pay",
      { band: "execute", work: { landableDrops: 2, freedTokens: 4_000 } },
      execute("threshold-work", "age"),
    ],
    [
      "threshold with ready history freeing the minimum that does not pay",
      { band: "execute", work: { readyHistory: 1, freedTokens: 8_000 } },
      execute("threshold-work", "age"),
    ],
    // Below the threshold: work that pays executes with age reclaim; an expired cache lets queued drops and smart
    // drops land, without reclaim.
    [
      "below with a queued drop that pays",
      { band: "below", pays: true, work: { landableDrops: 3, freedTokens: 30_000 } },
      execute("pays", "age"),
    ],
    [
      "below with ready history freeing the minimum that pays",
      { band: "below", pays: true, work: { readyHistory: 1, freedTokens: MINIMUM } },
      execute("pays", "age"),
    ],
    [
      "below with ready history that pays but frees less than the minimum",
      { band: "below", pays: true, work: { readyHistory: 1, freedTokens: MINIMUM - 1 } },
      replay("below-threshold"),
    ],
    [
      "below with work that pays mid-tool",
      { band: "below", pays: true, midTool: true, work: { landableDrops: 1, freedTokens: 5_000 } },
      replay("below-threshold"),
    ],
    [
      "below with only reclaim that pays (reclaim never opens a rewrite)",
      { band: "below", pays: true, work: { reclaim: { age: 9_000 }, freedTokens: 9_000 } },
      replay("below-threshold"),
    ],
    [
      "below with queued drops and an expired cache",
      { band: "below", cacheExpired: true, work: { landableDrops: 1 } },
      execute("cache-expired", null),
    ],
    [
      "below with smart drops and an expired cache",
      { band: "below", cacheExpired: true, work: { smartDrops: 1 } },
      execute("cache-expired", null),
    ],
    [
      "below with queued drops, an expired cache, mid-tool",
      { band: "below", cacheExpired: true, midTool: true, work: { landableDrops: 1 } },
      replay("below-threshold"),
    ],
    [
      "below with queued drops and a warm cache",
      { band: "below", work: { landableDrops: 4 } },
      replay("below-threshold"),
    ],
    [
      "below with only ready history and an expired cache",
      { band: "below", cacheExpired: true, work: { readyHistory: 1 } },
      replay("below-threshold"),
    ],
    [
      "below with only reclaim and an expired cache",
      { band: "below", cacheExpired: true, work: { reclaim: { age: 9_000, force: 9_000, emergency: 9_000 } } },
      replay("below-threshold"),
    ],
    ["below with nothing due", { band: "below", cacheExpired: true }, replay("below-threshold")],
  ])("decides %s", (_name, situation, expected) => {
    expect(decide(situation)).toEqual(expected)
  })
})
