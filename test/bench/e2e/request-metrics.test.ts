import { describe, expect, it } from "vitest"
import { measureRequests, type MeasuredRequest } from "../../../bench/e2e/request-metrics.js"

const request = (n: number, elements: string[], elementTokens: number[]): MeasuredRequest => ({
  n,
  turn: 0,
  elements,
  elementTokens,
})

/** One token per character: the tests' stand-in for the element counter. */
const countText = (text: string): number => text.length

describe("measureRequests", () => {
  it("compares each main request with the one before it and summarises tokens, shares and breaks", () => {
    const metrics = measureRequests({
      usableWindow: 25,
      contextWindow: 30,
      countText,
      sideRequests: [],
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
    // "summary" and "u1" share nothing, so the byte prefix is the element prefix here.
    expect(metrics.rows.map((row) => row.sharedPrefixTokens)).toEqual([0, 20, 15])
    expect(metrics.tokensAfterBytePrefixTotal).toBe(45)
    // Cached: 0, 20, 15 tokens; the rest 45 uncached (OpenAI) or written at 1.25 (Anthropic).
    expect(metrics.cost.openai).toBeCloseTo(45 + 0.1 * 35)
    expect(metrics.cost["anthropic-5m"]).toBeCloseTo(1.25 * 45 + 0.1 * 35)
    expect(metrics.cost["anthropic-1h"]).toBeCloseTo(2 * 45 + 0.1 * 35)
    expect(metrics.prefixShareMin).toBeCloseTo(3 / 10)
  })

  it("prices OpenAI on the shared byte prefix and Anthropic on whole messages when a message changed inside", () => {
    const metrics = measureRequests({
      usableWindow: 100,
      contextWindow: 100,
      countText,
      sideRequests: [],
      requests: [
        request(2, ["tt", "history-A", "u1"], [2, 9, 2]),
        // The history message changed at its ninth character: its first eight are still a cached byte prefix.
        request(3, ["tt", "history-B", "u1", "a1"], [2, 9, 2, 2]),
      ],
    })
    expect(metrics.rows[1]).toMatchObject({ prefixBreak: true, tokensAfterPrefix: 13, sharedPrefixTokens: 2 + 8 })
    expect(metrics.tokensAfterBytePrefixTotal).toBe(13 + 5)
    expect(metrics.cost.openai).toBeCloseTo(13 + 5 + 0.1 * 10)
    expect(metrics.cost["anthropic-5m"]).toBeCloseTo(1.25 * 13 + 1.25 * 13 + 0.1 * 2)
    expect(metrics.cost["anthropic-1h"]).toBeCloseTo(2 * 13 + 2 * 13 + 0.1 * 2)
  })

  it("never counts more shared tokens in a differing element than the element has", () => {
    const metrics = measureRequests({
      usableWindow: 100,
      contextWindow: 100,
      countText: () => 50,
      sideRequests: [],
      requests: [request(2, ["tt", "abcd"], [2, 3]), request(3, ["tt", "abcX"], [2, 3])],
    })
    expect(metrics.rows[1]?.sharedPrefixTokens).toBe(5)
  })

  it("prices each side request against the main request just before it and adds it to the session's cost", () => {
    const metrics = measureRequests({
      usableWindow: 100,
      contextWindow: 100,
      countText,
      requests: [request(2, ["tt", "s", "u1"], [2, 2, 2]), request(5, ["tt", "s", "u1", "a1"], [2, 2, 2, 2])],
      sideRequests: [
        // The title request comes first: nothing before it to share.
        request(1, ["[]", "title"], [1, 5]),
        // A compaction request after call 2: its tools differ at the first character ("[]" against "tt").
        request(3, ["[]", "summarize"], [1, 9]),
        // A side request that repeats call 2's tools and system message, then differs inside its third element.
        request(4, ["tt", "s", "u2"], [2, 2, 2]),
      ],
    })
    expect(metrics.cost.openai).toBeCloseTo(6 + (2 + 0.1 * 6))
    expect(metrics.sideCost.openai).toBeCloseTo(6 + 10 + (1 + 0.1 * 5))
    expect(metrics.sideCost["anthropic-5m"]).toBeCloseTo(1.25 * 6 + 1.25 * 10 + (1.25 * 2 + 0.1 * 4))
    expect(metrics.sideCost["anthropic-1h"]).toBeCloseTo(2 * 6 + 2 * 10 + (2 * 2 + 0.1 * 4))
    expect(metrics.sessionCost.openai).toBeCloseTo(metrics.cost.openai + metrics.sideCost.openai)
    for (const list of ["anthropic-5m", "anthropic-1h"] as const) {
      expect(metrics.sessionCost[list]).toBeCloseTo(metrics.cost[list] + metrics.sideCost[list])
    }
  })

  it("reports no shares for a run without requests", () => {
    const metrics = measureRequests({ usableWindow: 10, contextWindow: 20, countText, sideRequests: [], requests: [] })
    expect(metrics).toMatchObject({ mainRequests: 0, prefixShareMean: null, prefixShareMin: null, promptTokensMax: 0 })
  })
})
