import { describe, expect, it } from "vitest"
import { formatPromptCost, formatRunCosts } from "../../src/lab/format-prompt-cost.js"
import { NO_GENERATION } from "../../src/lab/generation-cost.js"
import { PROBE_KINDS, type ProbeKind } from "../../src/lab/probe-file.js"
import type { RunCost } from "../../src/lab/prompt-cost.js"
import type { PolicySummary, RunRecord, Survival } from "../../src/lab/summarize-probes.js"

const none: Survival = { probes: 0, survived: 0, rate: null }
const cost: RunCost = { calls: 100, promptTokens: 2_012_360, cachedTokens: 1_800_000, uncachedTokens: 212_360, costTokens: 392_360 }
const noCost: RunCost = { calls: 0, promptTokens: 0, cachedTokens: 0, uncachedTokens: 0, costTokens: 0 }

const summary = (overrides: Partial<PolicySummary>): PolicySummary => ({
  policy: "default",
  window: 48_000,
  survival: { probes: 3, survived: 2, rate: 2 / 3 },
  byKind: Object.fromEntries(PROBE_KINDS.map((kind) => [kind, none])) as Record<ProbeKind, Survival>,
  turns: 100,
  meanPromptTokens: 20_123.6,
  maxPromptTokens: 31_000,
  floorViolations: 0,
  prefixChanges: 2,
  prefixChangesPer100Turns: 2,
  tierSwitches: 5,
  executePasses: 2,
  recalledLines: 0,
  meanRecalledTokens: 0,
  survivalPer1kTokens: null,
  cost,
  meanCostTokens: 3923.6,
  survivalPer1kCostTokens: null,
  generation: NO_GENERATION,
  promptTokensSaved: null,
  overFidelityTokens: null,
  underFidelityProbes: null,
  ...overrides,
})

describe("formatPromptCost", () => {
  it("prints calls, prompt tokens, the cached share, cost in total and per call and survival per 1k cost", () => {
    const table = formatPromptCost([
      summary({ policy: "full", window: 1_000_000_000, survival: { probes: 3, survived: 3, rate: 1 }, survivalPer1kCostTokens: 0.2549 }),
      summary({ cost: noCost, meanCostTokens: 0 }),
    ])
    expect(table).toEqual([
      "policy   window     survived   calls  prompt tokens  cached  cost tokens  cost/call  survival/1k cost",
      "-------  ---------  ---------  -----  -------------  ------  -----------  ---------  ----------------",
      "full     unreduced  3/3 100%     100        2012360  89.4%        392360       3924  0.2549",
      "default  48000      2/3 66.7%      0              0  -                 0          0  -",
    ])
  })
})

describe("formatRunCosts", () => {
  it("prints the same per transcript, named by its file", () => {
    const run: RunRecord = {
      trace: "/abs/fixtures/traces/raw/pi.jsonl",
      traceName: "../traces/raw/pi.jsonl",
      policy: "default",
      window: 32_000,
      metrics: { turns: 100, executePasses: 2, promptTokens: 2_012_360, maxPromptTokens: 31_000, floorViolations: 0, prefixChanges: 2, tierSwitches: 5, recalledLines: 0, recalledTokens: 0 },
      cost,
      survival: { probes: 4, survived: 3, rate: 0.75 },
      points: [],
      generation: NO_GENERATION,
    }
    expect(formatRunCosts([run])).toEqual([
      "transcript  policy   window  survived  calls  prompt tokens  cached  cost tokens  cost/call  survival/1k cost",
      "----------  -------  ------  --------  -----  -------------  ------  -----------  ---------  ----------------",
      "pi.jsonl    default   32000  3/4 75%     100        2012360  89.4%        392360       3924  0.1912",
    ])
  })
})
