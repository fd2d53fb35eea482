import { describe, expect, it } from "vitest"
import type { ProbeVerdict } from "../../src/lab/probe-verdict.js"
import type { RunMetrics } from "../../src/lab/run-metrics.js"
import { summarizeProbes, type RunRecord } from "../../src/lab/summarize-probes.js"

const metrics = (turns: number, promptTokens: number, extra: Partial<RunMetrics> = {}): RunMetrics => ({
  turns,
  executePasses: 0,
  promptTokens,
  maxPromptTokens: promptTokens / turns,
  floorViolations: 0,
  prefixChanges: 0,
  tierSwitches: 0,
  ...extra,
})

const verdict = (
  probeId: string,
  kind: ProbeVerdict["kind"],
  policy: ProbeVerdict["policy"],
  survived: boolean | null,
): ProbeVerdict => ({
  probeId,
  kind,
  policy,
  window: 1000,
  needTurn: survived === null ? null : 9,
  survived,
})

describe("summarizeProbes", () => {
  const runs: RunRecord[] = [
    {
      trace: "a",
      policy: "default",
      window: 1000,
      metrics: metrics(10, 5000, { prefixChanges: 1, floorViolations: 3, tierSwitches: 2 }),
    },
    { trace: "b", policy: "default", window: 1000, metrics: metrics(30, 9000, { prefixChanges: 2, maxPromptTokens: 700 }) },
    { trace: "a", policy: "flat", window: 1000, metrics: metrics(10, 4000) },
  ]
  const verdicts: ProbeVerdict[] = [
    verdict("c", "constraint", "default", true),
    verdict("i", "identifier", "default", false),
    verdict("x", "incidental", "default", false),
    verdict("n", "incidental", "default", null),
    verdict("c", "constraint", "flat", true),
  ]
  const [defaults, flat] = summarizeProbes({ verdicts, runs })

  it("gives one summary per policy and window, in the order the runs came", () => {
    expect(summarizeProbes({ verdicts, runs }).map((summary) => [summary.policy, summary.window])).toEqual([
      ["default", 1000],
      ["flat", 1000],
    ])
  })

  it("rates survival over checked probes that are not incidental, and per kind", () => {
    expect(defaults?.survival).toEqual({ probes: 2, survived: 1, rate: 0.5 })
    expect(defaults?.byKind.incidental).toEqual({ probes: 1, survived: 0, rate: 0 })
    expect(defaults?.byKind.location).toEqual({ probes: 0, survived: 0, rate: null })
    expect(flat?.survival).toEqual({ probes: 1, survived: 1, rate: 1 })
  })

  it("adds the runs of every transcript: mean per call, maximum, prefix changes per 100 calls", () => {
    expect(defaults).toMatchObject({
      turns: 40,
      meanPromptTokens: 350,
      maxPromptTokens: 700,
      floorViolations: 3,
      prefixChanges: 3,
      prefixChangesPer100Turns: 7.5,
      tierSwitches: 2,
    })
  })
})
