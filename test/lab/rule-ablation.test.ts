import { describe, expect, it } from "vitest"
import type { ProbeEvaluation } from "../../src/lab/evaluate-probes.js"
import { LAB_RULE_NAMES, parseRuleNames, ruleAblation } from "../../src/lab/rule-ablation.js"
import type { ProbeVerdict } from "../../src/lab/probe-verdict.js"
import { summarizeProbes, type RunRecord } from "../../src/lab/summarize-probes.js"
import { NO_GENERATION } from "../../src/lab/generation-cost.js"
import { runCost } from "../../src/lab/prompt-cost.js"
import { HOST_TOOL_ROW_NAMES } from "../../src/session/host-tools.js"
import { RECOGNIZERS } from "../../src/session/recognizers.js"

describe("parseRuleNames", () => {
  it("knows every recognizer and every host tool row", () => {
    expect(LAB_RULE_NAMES).toEqual([...Object.keys(RECOGNIZERS), ...HOST_TOOL_ROW_NAMES])
    expect(LAB_RULE_NAMES).toContain("commit-hash")
    expect(LAB_RULE_NAMES).toContain("tool:apply_patch")
  })

  it("takes known names once each, in the order given", () => {
    expect(parseRuleNames("commit-hash, tool:apply_patch,commit-hash")).toEqual({ ok: true, value: ["commit-hash", "tool:apply_patch"] })
  })

  it.each([
    ["commit-hash,nope", '--without: unknown "nope"; expected names from edit-setting-lines, commit-hash,'],
    ["tool:bash", '--without: unknown "tool:bash"; expected names from'],
    [" , ", "--without: expected at least one of edit-setting-lines,"],
  ])("rejects %j", (raw, message) => {
    const parsed = parseRuleNames(raw)
    expect(parsed.ok).toBe(false)
    if (!parsed.ok) {
      expect(parsed.error).toContain(message)
      expect(parsed.error).toContain("tool:generic")
    }
  })
})

describe("ruleAblation", () => {
  const verdict = (probeId: string, policy: ProbeVerdict["policy"], survived: boolean | null, kind: ProbeVerdict["kind"] = "identifier"): ProbeVerdict => ({
    probeId,
    kind,
    policy,
    window: 8000,
    needTurn: 9,
    survived,
  })
  const evaluation = (verdicts: ProbeVerdict[], tokens: number): ProbeEvaluation => {
    const runs: RunRecord[] = (["full", "default"] as const).map((policy) => ({
      trace: "t",
      traceName: "t",
      policy,
      window: 8000,
      metrics: { turns: 10, executePasses: 1, promptTokens: tokens, maxPromptTokens: tokens, floorViolations: 0, prefixChanges: 0, tierSwitches: 0, recalledLines: 0, recalledTokens: 0 },
      cost: runCost([]),
      survival: { probes: 0, survived: 0, rate: null },
      points: [],
      generation: NO_GENERATION,
    }))
    return { validity: [], verdicts, runs, summaries: summarizeProbes({ verdicts, runs }) }
  }

  it("reports survival both ways, the difference and the probes only the rules kept or only their absence kept", () => {
    const withRules = evaluation(
      [verdict("a", "full", true), verdict("a", "default", true), verdict("b", "default", true), verdict("c", "default", false), verdict("x", "default", true, "incidental")],
      50_000,
    )
    const withoutRules = evaluation(
      [verdict("a", "full", true), verdict("a", "default", false), verdict("b", "default", true), verdict("c", "default", true), verdict("x", "default", false, "incidental")],
      48_000,
    )
    const ablation = ruleAblation({ rules: ["commit-hash"], withRules, withoutRules })
    expect(ablation).toEqual({
      rules: ["commit-hash"],
      rows: [
        {
          policy: "default",
          window: 8000,
          withRules: { probes: 3, survived: 2, rate: 2 / 3 },
          withoutRules: { probes: 3, survived: 2, rate: 2 / 3 },
          difference: 0,
          saved: ["a"],
          lostWithRules: ["c"],
          meanPromptTokens: { withRules: 5000, withoutRules: 4800 },
          meanCostTokens: { withRules: 0, withoutRules: 0 },
        },
      ],
    })
  })
})
