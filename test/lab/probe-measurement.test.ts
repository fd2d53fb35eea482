import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { evaluateProbes } from "../../src/lab/evaluate-probes.js"
import { formatPolicySummaries } from "../../src/lab/format-policy-summaries.js"
import type { SelectionPolicy } from "../../src/render/select-tiers.js"
import { createTokenCounterPool, type TokenCounterPool } from "../../src/tokens/tiktoken-counter.js"
import { realTraceProbes } from "./real-trace-probes.js"

const WINDOW = 48_000
const POLICIES: readonly SelectionPolicy[] = ["default", "flat", "truncation"]

let pool: TokenCounterPool

beforeAll(() => {
  pool = createTokenCounterPool()
})

afterAll(() => {
  pool.dispose()
})

// A measurement, not a regression gate (yet): it prints the table and checks only that every cell was measured.
describe("probe survival on the real traces", () => {
  it(`measures default, flat and truncation at a ${WINDOW.toLocaleString("en-US")}-token window`, async () => {
    const probes = realTraceProbes()
    const counter = pool.counterFor("o200k_base")
    const evaluation = await evaluateProbes({ probes, policies: POLICIES, windows: [WINDOW], counter })

    const lost = (policy: string): string => {
      const verdicts = evaluation.verdicts.filter((verdict) => verdict.policy === policy && verdict.survived === false)
      return verdicts.map((verdict) => `${verdict.probeId}@${verdict.needTurn}`).join(", ") || "-"
    }
    const report = [
      `probe survival over ${probes.length} probes on the real traces (window ${WINDOW}, ${counter.encoding}):`,
      ...formatPolicySummaries(evaluation.summaries),
      "",
      ...POLICIES.map((policy) => `lost under ${policy}: ${lost(policy)}`),
    ]
    console.log(report.join("\n"))

    expect(evaluation.validity.every((entry) => entry.valid)).toBe(true)
    expect(evaluation.summaries.map((summary) => summary.policy)).toEqual(["full", ...POLICIES])
    for (const summary of evaluation.summaries) {
      expect(summary.turns).toBeGreaterThan(0)
      expect(summary.survival.probes).toBe(evaluation.summaries[0]?.survival.probes)
    }
  }, 180_000)
})
