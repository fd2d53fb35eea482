import { billedPrompt, DEFAULT_PRICES, promptCost } from "../../src/pressure/cost-model.js"
import { comparePrefix } from "./prefix-share.js"

/** One main request as measured: its elements (prefix-share.ts) and each element's token count. */
export type MeasuredRequest = {
  n: number
  turn: number
  elements: readonly string[]
  elementTokens: readonly number[]
}

/** One main request in the report. */
export type RequestRow = {
  n: number
  turn: number
  promptTokens: number
  bytes: number
  /** Share of this request's bytes that repeats the previous main request's leading elements; null for the first. */
  prefixShare: number | null
  /** The previous main request is not an element-wise prefix of this one; null for the first. */
  prefixBreak: boolean | null
  /** Tokens of the elements after the reusable prefix (what a prefix cache could not serve). */
  tokensAfterPrefix: number
}

/** The request-side numbers of one configuration. */
export type RequestMetrics = {
  mainRequests: number
  promptTokensMean: number
  promptTokensMax: number
  promptTokensTotal: number
  tokensAfterPrefixTotal: number
  /**
   * Estimated prompt cost over all calls, in uncached-input-token units (src/pressure/cost-model.ts): each call's
   * reusable prefix as cached reads (0.1), the rest uncached (`openai`) or written to the cache at 1.25 (`anthropic`).
   */
  cost: { openai: number; anthropic: number }
  prefixShareMean: number | null
  prefixShareMin: number | null
  prefixBreaks: number
  /** Request numbers (`n`, the mock's count over all requests) of the prefix breaks. */
  prefixBreakAt: number[]
  /** Main requests whose prompt tokens exceed the usable window (context minus the output reserve). */
  overUsableWindow: number
  /** Main requests whose prompt tokens exceed the whole context window (a real provider would refuse them). */
  overContextWindow: number
  rows: RequestRow[]
}

/** Measures main requests in arrival order, each against the main request just before it. */
export function measureRequests(options: {
  requests: readonly MeasuredRequest[]
  usableWindow: number
  contextWindow: number
}): RequestMetrics {
  const rows = options.requests.map((request, index): RequestRow => {
    const promptTokens = sum(request.elementTokens)
    const previous = options.requests[index - 1]
    // The first request is compared with nothing: no reusable prefix, and no share or break to report.
    const comparison = comparePrefix({ previous: previous?.elements ?? [], current: request.elements })
    return {
      n: request.n,
      turn: request.turn,
      promptTokens,
      bytes: comparison.totalBytes,
      prefixShare: previous ? comparison.share : null,
      prefixBreak: previous ? comparison.isBreak : null,
      tokensAfterPrefix: promptTokens - sum(request.elementTokens.slice(0, comparison.matchingElements)),
    }
  })
  const tokens = rows.map((row) => row.promptTokens)
  const shares = rows.flatMap((row) => (row.prefixShare === null ? [] : [row.prefixShare]))
  const breaks = rows.filter((row) => row.prefixBreak === true)
  return {
    mainRequests: rows.length,
    promptTokensMean: mean(tokens) ?? 0,
    promptTokensMax: Math.max(0, ...tokens),
    promptTokensTotal: sum(tokens),
    tokensAfterPrefixTotal: sum(rows.map((row) => row.tokensAfterPrefix)),
    cost: { openai: costOf(rows, "openai"), anthropic: costOf(rows, "anthropic") },
    prefixShareMean: mean(shares),
    prefixShareMin: shares.length === 0 ? null : Math.min(...shares),
    prefixBreaks: breaks.length,
    prefixBreakAt: breaks.map((row) => row.n),
    overUsableWindow: rows.filter((row) => row.promptTokens > options.usableWindow).length,
    overContextWindow: rows.filter((row) => row.promptTokens > options.contextWindow).length,
    rows,
  }
}

function costOf(rows: readonly RequestRow[], family: "openai" | "anthropic"): number {
  const prices = DEFAULT_PRICES[family]
  return sum(
    rows.map((row) =>
      promptCost(billedPrompt({ promptTokens: row.promptTokens, sharedPrefixTokens: row.promptTokens - row.tokensAfterPrefix, cacheWarm: true, prices }), prices),
    ),
  )
}

function sum(values: readonly number[]): number {
  return values.reduce((total, value) => total + value, 0)
}

function mean(values: readonly number[]): number | null {
  return values.length === 0 ? null : sum(values) / values.length
}
