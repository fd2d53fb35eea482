import { describe, expect, it } from "vitest"
import { measureRequests, type MeasuredRequest } from "../../../bench/e2e/request-metrics.js"

const request = (n: number, elements: string[], elementTokens: number[]): MeasuredRequest => ({
  n,
  turn: 0,
  elements,
  elementTokens,
})

describe("measureRequests", () => {
  it("compares each main request with the one before it and summarises tokens, shares and breaks", () => {
    const metrics = measureRequests({
      usableWindow: 25,
      contextWindow: 30,
      requests: [
        request(2, ["tt", "s", "u1"], [10, 5, 5]),
        request(3, ["tt", "s", "u1", "a1"], [10, 5, 5, 5]),
        // A compaction rewrote the history: the previous request is no longer a prefix.
        request(5, ["tt", "s", "summary"], [10, 5, 20]),
      ],
    })
    expect(metrics.rows.map((row) => [row.n, row.promptTokens, row.prefixBreak, row.tokensAfterPrefix])).toEqual([
      [2, 20, null, 20],
      [3, 25, false, 5],
      [5, 35, true, 20],
    ])
    expect(metrics.rows[0]?.prefixShare).toBeNull()
    expect(metrics.rows[1]?.prefixShare).toBeCloseTo(5 / 7)
    expect(metrics).toMatchObject({
      mainRequests: 3,
      promptTokensMax: 35,
      promptTokensTotal: 80,
      tokensAfterPrefixTotal: 45,
      prefixBreaks: 1,
      prefixBreakAt: [5],
      overUsableWindow: 1,
      overContextWindow: 1,
    })
    expect(metrics.promptTokensMean).toBeCloseTo(80 / 3)
    // Cached: 0, 20, 15 tokens; the rest 45 uncached (OpenAI) or written at 1.25 (Anthropic).
    expect(metrics.cost.openai).toBeCloseTo(45 + 0.1 * 35)
    expect(metrics.cost.anthropic).toBeCloseTo(1.25 * 45 + 0.1 * 35)
    expect(metrics.prefixShareMin).toBeCloseTo(3 / 10)
  })

  it("reports no shares for a run without requests", () => {
    const metrics = measureRequests({ usableWindow: 10, contextWindow: 20, requests: [] })
    expect(metrics).toMatchObject({ mainRequests: 0, prefixShareMean: null, prefixShareMin: null, promptTokensMax: 0 })
  })
})
