import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { fileURLToPath } from "node:url"
import { evaluateProbes, type ProbeEvaluation } from "../../src/lab/evaluate-probes.js"
import { formatPolicySummaries } from "../../src/lab/format-policy-summaries.js"
import type { Probe } from "../../src/lab/probe-file.js"
import { readProbeFile } from "../../src/lab/read-probe-file.js"
import type { PolicySummary } from "../../src/lab/summarize-probes.js"
import { REPLAY_COUNT_CACHE_CHARS } from "../../src/tokens/counted-text-cache.js"
import { createTokenCounterPool, type TokenCounterPool } from "../../src/tokens/tiktoken-counter.js"
import { GATE_TRACES, PINNED_GATE_SURVIVED } from "./lab-regression-pins.js"

/**
 * The Lab's regression gate in `npm test`: the default policy over the probes of GATE_TRACES at one window, 32k (the
 * window of the equal-cost comparison). A lost recognizer shows there: without any one of seven named rules
 * (doc-rule-lines among them) the default keeps fewer than its pin. The full gate, over every probe fixture at three
 * windows and at equal cost, runs in `npm run test:full`.
 */
const WINDOW = 32_000

function fixtureProbes(name: string): Probe[] {
  const result = readProbeFile(fileURLToPath(new URL(`../../fixtures/probes/${name}`, import.meta.url)))
  if (!result.ok) throw new Error(result.error)
  return result.value
}

/** The probes of GATE_TRACES, each trace's in the fixture's order; a trace with no probe fails here. */
function gateProbes(): Probe[] {
  const probes = fixtureProbes("synthetic-opencode.json")
  for (const trace of GATE_TRACES) {
    if (!probes.some((probe) => probe.trace.endsWith(`/${trace}`))) throw new Error(`no probe names ${trace}`)
  }
  return probes.filter((probe) => GATE_TRACES.some((trace) => probe.trace.endsWith(`/${trace}`)))
}

let pool: TokenCounterPool
let evaluation: ProbeEvaluation

beforeAll(async () => {
  pool = createTokenCounterPool({ cacheChars: REPLAY_COUNT_CACHE_CHARS })
  evaluation = await evaluateProbes({
    probes: gateProbes(),
    policies: ["default", "flat", "truncation"],
    windows: [WINDOW],
    counter: pool.counterFor("o200k_base"),
  })
  console.log([`Lab regression over ${GATE_TRACES.join(", ")} at 32k:`, ...formatPolicySummaries(evaluation.summaries)].join("\n"))
}, 400_000)

afterAll(() => {
  pool.dispose()
})

const summaryOf = (policy: string): PolicySummary => {
  const summary = evaluation.summaries.find((entry) => entry.policy === policy && entry.window === WINDOW)
  if (!summary) throw new Error(`no summary for ${policy} at ${WINDOW}`)
  return summary
}

describe("the Lab on its gate's probe fixtures at 32k", () => {
  it("evaluates every probe", () => {
    expect(evaluation.validity.filter((entry) => !entry.valid)).toEqual([])
  })

  it("the default keeps at least its pinned count and more than flat and truncation", () => {
    const defaults = summaryOf("default")
    expect(defaults.survival.survived).toBeGreaterThanOrEqual(PINNED_GATE_SURVIVED)
    expect(defaults.survival.survived).toBeGreaterThan(summaryOf("flat").survival.survived)
    expect(defaults.survival.survived).toBeGreaterThan(summaryOf("truncation").survival.survived)
  })

  it("the default never renders a compartment below its floor", () => {
    expect(summaryOf("default").floorViolations).toBe(0)
  })
})
