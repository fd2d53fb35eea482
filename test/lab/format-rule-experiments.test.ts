import { describe, expect, it } from "vitest"
import { formatFolds, formatRuleAblation } from "../../src/lab/format-rule-experiments.js"

describe("formatRuleAblation", () => {
  it("prints survival with and without the rules, the difference, tokens and cost both ways and the probe ids", () => {
    const table = formatRuleAblation({
      rules: ["commit-hash"],
      rows: [
        {
          policy: "default",
          window: 32_000,
          withRules: { probes: 4, survived: 3, rate: 0.75 },
          withoutRules: { probes: 4, survived: 2, rate: 0.5 },
          difference: 1,
          saved: ["fix-commit", "port"],
          lostWithRules: ["other"],
          meanPromptTokens: { withRules: 15_363.4, withoutRules: 15_135 },
          meanCostTokens: { withRules: 2304.2, withoutRules: 2216 },
        },
      ],
    })
    expect(table).toEqual([
      "policy   window  with rules  without  with − without  tokens with  tokens without  cost/call with  cost/call without  saved             lost with rules",
      "-------  ------  ----------  -------  --------------  -----------  --------------  --------------  -----------------  ----------------  ---------------",
      "default   32000  3/4 75%     2/4 50%  +1                    15363           15135            2304               2216  fix-commit, port  other",
    ])
  })
})

describe("formatFolds", () => {
  it("prints one row per transcript and the pooled row, then the rules switched off per transcript", () => {
    const table = formatFolds({
      folds: [
        { trace: "../raw/a.jsonl", rulesOff: ["commit-hash", "spec-lists"], policy: "default", window: 32_000, allRules: { probes: 2, survived: 2, rate: 1 }, fold: { probes: 2, survived: 1, rate: 0.5 } },
        { trace: "b.jsonl", rulesOff: [], policy: "default", window: 32_000, allRules: { probes: 1, survived: 0, rate: 0 }, fold: { probes: 1, survived: 0, rate: 0 } },
      ],
      pooled: [{ policy: "default", window: 32_000, allRules: { probes: 3, survived: 2, rate: 2 / 3 }, fold: { probes: 3, survived: 1, rate: 1 / 3 } }],
    })
    expect(table).toEqual([
      "transcript  rules off  policy   window  all rules  fold       all − fold",
      "----------  ---------  -------  ------  ---------  ---------  ----------",
      "a.jsonl     2          default   32000  2/2 100%   1/2 50%    +1",
      "b.jsonl     0          default   32000  0/1 0%     0/1 0%     0",
      "pooled      -          default   32000  2/3 66.7%  1/3 33.3%  +1",
      "",
      "switched off for a.jsonl: 2 (commit-hash, spec-lists)",
      "switched off for b.jsonl: none",
    ])
  })
})
