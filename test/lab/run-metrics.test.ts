import { describe, expect, it } from "vitest"
import { addRunMetrics, runMetrics, type TurnMeasure } from "../../src/lab/run-metrics.js"

const turn = (total: number, extra: Partial<TurnMeasure> = {}): TurnMeasure => ({
  pass: "replay",
  tokens: { total, fixed: 0, history: 0, conversation: total, protected: 0, tool: 0, reclaimable: 0, tags: 0 },
  prefixChanged: false,
  history: null,
  ...extra,
})

describe("runMetrics", () => {
  it("sums tokens and floor violations per call, counts prefix changes and takes the cumulative tier switches", () => {
    const history = (floorViolations: number, switches: number, recalledLines = 0, recalledTokens = 0): TurnMeasure["history"] => ({
      tiers: {},
      floorViolations,
      switches,
      recalledLines,
      recalledTokens,
    })
    const metrics = runMetrics([
      turn(100),
      turn(300, { pass: "execute", prefixChanged: true, history: history(2, 1, 3, 40) }),
      turn(200, { history: history(2, 1, 3, 40) }),
      turn(250, { pass: "execute", prefixChanged: true, history: history(1, 4) }),
    ])
    expect(metrics).toEqual({
      turns: 4,
      executePasses: 2,
      promptTokens: 850,
      maxPromptTokens: 300,
      floorViolations: 5,
      prefixChanges: 2,
      tierSwitches: 4,
      // Lines count once, at the execute pass that applied them; their tokens at every call that sent them.
      recalledLines: 3,
      recalledTokens: 80,
    })
  })

  it("is all zeros for a run without calls", () => {
    expect(runMetrics([])).toEqual({
      turns: 0,
      executePasses: 0,
      promptTokens: 0,
      maxPromptTokens: 0,
      floorViolations: 0,
      prefixChanges: 0,
      tierSwitches: 0,
      recalledLines: 0,
      recalledTokens: 0,
    })
  })
})

describe("addRunMetrics", () => {
  it("adds the sums and keeps the largest maximum", () => {
    const one = runMetrics([turn(100), turn(400)])
    const two = runMetrics([turn(300, { prefixChanged: true })])
    expect(addRunMetrics([one, two])).toEqual({
      turns: 3,
      executePasses: 0,
      promptTokens: 800,
      maxPromptTokens: 400,
      floorViolations: 0,
      prefixChanges: 1,
      tierSwitches: 0,
      recalledLines: 0,
      recalledTokens: 0,
    })
  })
})
