import { REPLAY_COUNT_CACHE_CHARS } from "../../src/tokens/counted-text-cache.js"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { evaluateProbes, type ProbeEvaluation } from "../../src/lab/evaluate-probes.js"
import { formatPolicySummaries } from "../../src/lab/format-policy-summaries.js"
import type { Probe } from "../../src/lab/probe-file.js"
import { readProbeFile } from "../../src/lab/read-probe-file.js"
import type { PolicySummary } from "../../src/lab/summarize-probes.js"
import { formatIsoTokens } from "../../src/lab/format-iso-tokens.js"
import { isoTokenPoints } from "../../src/lab/iso-tokens.js"
import { recognizersWithout } from "../../src/session/recognizers.js"
import { createTokenCounterPool, type TokenCounterPool } from "../../src/tokens/tiktoken-counter.js"
import { realTraceProbes } from "./real-trace-probes.js"
import { fileURLToPath } from "node:url"
import { PINNED_DEFAULT_SURVIVED } from "./lab-regression-pins.js"

/**
 * The full regression gate of the Lab (`npm run test:full`): the default policy over every probe fixture (the real
 * traces, the synthetic sessions and the OpenCode-shaped synthetic sessions), at three windows and at equal cost.
 * Pinned figures are the non-incidental probes the default kept when they were last measured; an improvement raises
 * them, a regression fails here. `npm test` runs the smaller gate at one window (lab-regression.test.ts).
 */
const WINDOWS = [16_000, 32_000, 64_000]
/**
 * Where no floor may break. At 16k one real trace's floors alone would keep the prompt in the emergency band, and
 * there floors yield to the window by design (ARCHITECTURE, "Floors win over the budget, not over the window").
 */
const FLOOR_WINDOWS = [32_000, 64_000]

function fixtureProbes(name: string): Probe[] {
  const result = readProbeFile(fileURLToPath(new URL(`../../fixtures/probes/${name}`, import.meta.url)))
  if (!result.ok) throw new Error(result.error)
  return result.value
}

let pool: TokenCounterPool
let evaluation: ProbeEvaluation
let probes: Probe[]

beforeAll(async () => {
  pool = createTokenCounterPool({ cacheChars: REPLAY_COUNT_CACHE_CHARS })
  probes = [...realTraceProbes(), ...fixtureProbes("synthetic.json"), ...fixtureProbes("synthetic-opencode.json")]
  evaluation = await evaluateProbes({
    probes,
    policies: ["default", "flat", "truncation"],
    windows: WINDOWS,
    counter: pool.counterFor("o200k_base"),
  })
  console.log(["Lab regression over every probe fixture:", ...formatPolicySummaries(evaluation.summaries)].join("\n"))
}, 400_000)

afterAll(() => {
  pool.dispose()
})

const summaryOf = (policy: string, window: number): PolicySummary => {
  const summary = evaluation.summaries.find((entry) => entry.policy === policy && entry.window === window)
  if (!summary) throw new Error(`no summary for ${policy} at ${window}`)
  return summary
}

describe("the Lab on the probe fixtures", () => {
  it("evaluates every probe", () => {
    expect(evaluation.validity.filter((entry) => !entry.valid)).toEqual([])
  })

  it.each(WINDOWS)("at %i tokens the default keeps at least its pinned count and more than flat and truncation", (window) => {
    const defaults = summaryOf("default", window)
    expect(defaults.survival.survived).toBeGreaterThanOrEqual(PINNED_DEFAULT_SURVIVED[window] as number)
    expect(defaults.survival.survived).toBeGreaterThan(summaryOf("flat", window).survival.survived)
    expect(defaults.survival.survived).toBeGreaterThan(summaryOf("truncation", window).survival.survived)
  })

  it("keeps at every window each probe the default kept at half of it (survival monotone in the window)", () => {
    const kept = (window: number): Set<string> =>
      new Set(evaluation.verdicts.filter((verdict) => verdict.policy === "default" && verdict.window === window && verdict.survived === true).map((verdict) => verdict.probeId))
    for (let index = 1; index < WINDOWS.length; index += 1) {
      const [smaller, larger] = [WINDOWS[index - 1] as number, WINDOWS[index] as number]
      const keptLarger = kept(larger)
      expect([...kept(smaller)].filter((id) => !keptLarger.has(id)), `kept at ${smaller}, lost at ${larger}`).toEqual([])
    }
  })

  it.each(FLOOR_WINDOWS)("at %i tokens the default never renders a compartment below its floor", (window) => {
    expect(summaryOf("default", window).floorViolations).toBe(0)
  })

  it("at equal cost (32k) flat and truncation, replayed at the window matching the default's mean tokens, keep fewer", async () => {
    const points = await isoTokenPoints({
      evaluation,
      probes,
      baselines: ["flat", "truncation"],
      windows: [32_000],
      counter: pool.counterFor("o200k_base"),
    })
    console.log(["Lab regression at equal cost:", ...formatIsoTokens(points)].join("\n"))
    expect(points.map((point) => point.policy)).toEqual(["flat", "truncation"])
    for (const point of points) {
      expect(Math.abs(point.meanPromptTokens - point.defaultMeanPromptTokens)).toBeLessThanOrEqual(point.defaultMeanPromptTokens * 0.03)
      expect(point.survived).toBeLessThan(point.defaultSurvived)
    }
  }, 600_000)

  it("fails a regression: without the doc-rule-lines recognizer the default at 32k keeps fewer than its pin", async () => {
    const without = await evaluateProbes({
      probes,
      policies: ["default"],
      windows: [32_000],
      counter: pool.counterFor("o200k_base"),
      recognizers: recognizersWithout(["doc-rule-lines"]),
    })
    const survived = without.summaries.find((entry) => entry.policy === "default")?.survival.survived
    expect(survived).toBeLessThan(PINNED_DEFAULT_SURVIVED[32_000] as number)
  }, 600_000)
})
