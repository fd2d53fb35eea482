import { describe, expect, it } from "vitest"
import { formatPolicySummaries, formatReferenceComparison } from "../../src/lab/format-policy-summaries.js"
import { PROBE_KINDS, type ProbeKind } from "../../src/lab/probe-file.js"
import type { PolicySummary, Survival } from "../../src/lab/summarize-probes.js"
import { NO_GENERATION } from "../../src/lab/generation-cost.js"

const none: Survival = { probes: 0, survived: 0, rate: null }
const byKind = (entries: Partial<Record<ProbeKind, Survival>>): Record<ProbeKind, Survival> =>
  Object.fromEntries(PROBE_KINDS.map((kind) => [kind, entries[kind] ?? none])) as Record<ProbeKind, Survival>

const summary = (overrides: Partial<PolicySummary>): PolicySummary => ({
  policy: "default",
  window: 48_000,
  survival: { probes: 3, survived: 2, rate: 2 / 3 },
  byKind: byKind({ constraint: { probes: 2, survived: 2, rate: 1 }, identifier: { probes: 1, survived: 0, rate: 0 } }),
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
  cost: { calls: 100, promptTokens: 2_012_360, cachedTokens: 1_800_000, uncachedTokens: 212_360, costTokens: 392_360 },
  meanCostTokens: 3923.6,
  survivalPer1kCostTokens: null,
  generation: NO_GENERATION,
  promptTokensSaved: null,
  overFidelityTokens: null,
  underFidelityProbes: null,
  ...overrides,
})

describe("formatPolicySummaries", () => {
  it("prints one row per policy and window with survival per kind and the cost columns", () => {
    const table = formatPolicySummaries([
      summary({ policy: "full", window: 1_000_000_000, survival: { probes: 3, survived: 3, rate: 1 }, prefixChangesPer100Turns: 0 }),
      summary({}),
      summary({ policy: "truncation", survival: { probes: 3, survived: 1, rate: 1 / 3 }, floorViolations: 120, prefixChangesPer100Turns: 1.8333 }),
    ])
    expect(table).toMatchInlineSnapshot(`
      [
        "policy      window     survived   constraint  identifier  decision_rationale  rejected_alternative  bug_status  location  incidental  mean tokens  max tokens  floor violations  prefix/100  tier switches",
        "----------  ---------  ---------  ----------  ----------  ------------------  --------------------  ----------  --------  ----------  -----------  ----------  ----------------  ----------  -------------",
        "full        unreduced  3/3 100%   2/2         0/1         -                   -                     -           -         -                 20124       31000                 0           0              5",
        "default     48000      2/3 66.7%  2/2         0/1         -                   -                     -           -         -                 20124       31000                 0           2              5",
        "truncation  48000      1/3 33.3%  2/2         0/1         -                   -                     -           -         -                 20124       31000               120        1.83              5",
      ]
    `)
  })
})

describe("formatReferenceComparison", () => {
  it("prints survival per 1k tokens, the oracle and full comparisons and the generation cost, '-' where unknown", () => {
    const table = formatReferenceComparison([
      summary({ policy: "full", window: 1_000_000_000, promptTokensSaved: 0 }),
      summary({
        survivalPer1kTokens: 0.0331,
        overFidelityTokens: 812.4,
        underFidelityProbes: 1,
        promptTokensSaved: 1_234_567,
        generation: { compartments: 12, representations: 40, representationTokens: 9000, sourceTokens: 80_000, modelTokens: 0 },
      }),
    ])
    expect(table).toEqual([
      "policy   window     survival/1k tokens  tokens above oracle  lost vs oracle  saved vs full  compartments  tier tokens  model tokens",
      "-------  ---------  ------------------  -------------------  --------------  -------------  ------------  -----------  ------------",
      "full     unreduced  -                   -                    -                           0             0            0             0",
      "default  48000      0.0331              812                  1                     1234567            12         9000             0",
    ])
  })
})
