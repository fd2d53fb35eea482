import { describe, expect, it } from "vitest"
import type { ProbeVerdict } from "../../src/lab/probe-verdict.js"
import type { RunMetrics } from "../../src/lab/run-metrics.js"
import { summarizeProbes, type RunRecord } from "../../src/lab/summarize-probes.js"
import { NO_GENERATION, type GenerationCost } from "../../src/lab/generation-cost.js"
import { runCost, type RunCost } from "../../src/lab/prompt-cost.js"

const metrics = (turns: number, promptTokens: number, extra: Partial<RunMetrics> = {}): RunMetrics => ({
  turns,
  executePasses: 0,
  promptTokens,
  maxPromptTokens: promptTokens / turns,
  floorViolations: 0,
  prefixChanges: 0,
  tierSwitches: 0,
  recalledLines: 0,
  recalledTokens: 0,
  ...extra,
})

const run = (
  trace: string,
  policy: RunRecord["policy"],
  runMetrics: RunMetrics,
  generation: GenerationCost = NO_GENERATION,
  window = 1000,
  cost: RunCost = runCost([]),
): RunRecord => ({ trace, traceName: trace, policy, window, metrics: runMetrics, cost, survival: { probes: 0, survived: 0, rate: null }, points: [], generation })

const verdict = (
  probeId: string,
  kind: ProbeVerdict["kind"],
  policy: ProbeVerdict["policy"],
  survived: boolean | null,
  window = 1000,
): ProbeVerdict => ({
  probeId,
  kind,
  policy,
  window,
  needTurn: survived === null ? null : 9,
  survived,
})

describe("summarizeProbes", () => {
  const generated: GenerationCost = {
    compartments: 2,
    representations: 7,
    representationTokens: 900,
    sourceTokens: 6000,
    modelTokens: 0,
  }
  const runs: RunRecord[] = [
    run("a", "default", metrics(10, 5000, { prefixChanges: 1, floorViolations: 3, tierSwitches: 2 }), generated),
    run("b", "default", metrics(30, 9000, { prefixChanges: 2, maxPromptTokens: 700 }), generated),
    run("a", "flat", metrics(10, 4000)),
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

  it("sums the generation cost of the runs and rates survival per 1,000 mean prompt tokens", () => {
    expect(defaults?.generation).toEqual({
      compartments: 4,
      representations: 14,
      representationTokens: 1800,
      sourceTokens: 12000,
      modelTokens: 0,
    })
    // 1 of 2 non-incidental probes at a mean of 350 tokens: 0.5 / 0.35.
    expect(defaults?.survivalPer1kTokens).toBeCloseTo(0.5 / 0.35, 10)
    expect(defaults?.overFidelityTokens).toBeNull()
    expect(defaults?.promptTokensSaved).toBeNull()
  })
})

describe("summarizeProbes against the references", () => {
  const runs: RunRecord[] = [
    run("a", "full", metrics(10, 10_000), NO_GENERATION, 5),
    run("a", "default", metrics(10, 6000)),
    run("a", "oracle", metrics(10, 5000)),
    run("a", "flat", metrics(10, 4000)),
  ]
  const verdicts: ProbeVerdict[] = [
    verdict("p", "identifier", "full", true, 5),
    verdict("q", "location", "full", true, 5),
    verdict("p", "identifier", "default", true),
    verdict("q", "location", "default", false),
    verdict("p", "identifier", "oracle", true),
    verdict("q", "location", "oracle", true),
    verdict("p", "identifier", "flat", false),
    verdict("q", "location", "flat", false),
    verdict("z", "incidental", "oracle", true),
  ]
  const summaries = summarizeProbes({ verdicts, runs })
  const of = (policy: string) => summaries.find((summary) => summary.policy === policy)

  it("counts tokens above the oracle and probes the oracle kept but the policy lost, at the same window", () => {
    expect(of("default")).toMatchObject({ overFidelityTokens: 100, underFidelityProbes: 1 })
    expect(of("flat")).toMatchObject({ overFidelityTokens: -100, underFidelityProbes: 2 })
    expect(of("oracle")).toMatchObject({ overFidelityTokens: null, underFidelityProbes: null })
    expect(of("full")).toMatchObject({ overFidelityTokens: null, underFidelityProbes: null })
  })

  it("counts the prompt tokens each policy saved against full over the same calls", () => {
    expect(summaries.map((summary) => [summary.policy, summary.promptTokensSaved])).toEqual([
      ["full", 0],
      ["default", 4000],
      ["oracle", 5000],
      ["flat", 6000],
    ])
  })
})

describe("summarizeProbes prompt cost", () => {
  const cost = (calls: number, promptTokens: number, cachedTokens: number): RunCost => ({
    calls,
    promptTokens,
    cachedTokens,
    uncachedTokens: promptTokens - cachedTokens,
    costTokens: promptTokens - cachedTokens + 0.1 * cachedTokens,
  })
  const runs: RunRecord[] = [
    run("a", "default", metrics(10, 5000), NO_GENERATION, 1000, cost(10, 5000, 4000)),
    run("b", "default", metrics(10, 3000), NO_GENERATION, 1000, cost(10, 3000, 0)),
  ]
  const verdicts: ProbeVerdict[] = [verdict("c", "constraint", "default", true), verdict("i", "identifier", "default", false)]
  const [summary] = summarizeProbes({ verdicts, runs })

  it("adds the runs' costs and rates survival per 1,000 mean cost tokens", () => {
    expect(summary?.cost).toEqual({ calls: 20, promptTokens: 8000, cachedTokens: 4000, uncachedTokens: 4000, costTokens: 4400 })
    expect(summary?.meanCostTokens).toBe(220)
    // Half the probes at 220 cost tokens per call.
    expect(summary?.survivalPer1kCostTokens).toBeCloseTo(0.5 / 0.22, 10)
  })
})
