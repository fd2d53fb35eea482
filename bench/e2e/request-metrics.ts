import { billedPrompt, promptCost } from "../../src/pressure/cost-model.js"
import { PRICE_LISTS } from "../../src/session/price-lists.js"
import { BENCH_PRICE_LISTS, type BenchPriceList, type ListCost } from "./bench-price-lists.js"
import { comparePrefix, type PrefixComparison } from "./prefix-share.js"

/** One request as measured: its elements (prefix-share.ts) and each element's token count. */
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
  /**
   * Tokens of the shared byte prefix: the matching elements' tokens plus the count of the shared start of the first
   * differing element (0 for the first request).
   */
  sharedPrefixTokens: number
}

/** The request-side numbers of one configuration. */
export type RequestMetrics = {
  mainRequests: number
  promptTokensMean: number
  promptTokensMax: number
  promptTokensTotal: number
  tokensAfterPrefixTotal: number
  /** Prompt tokens minus the shared byte prefix's, over all calls. */
  tokensAfterBytePrefixTotal: number
  /**
   * Estimated prompt cost over all calls per price list, in uncached-input-token units (src/pressure/cost-model.ts):
   * `openai` prices each call's shared byte prefix as cached reads (0.1) and the rest uncached; `anthropic-5m` and
   * `anthropic-1h` price the matching elements (whole messages) as cached reads and the rest as cache writes (1.25
   * and 2).
   */
  cost: ListCost
  /**
   * The same prices for the side requests (title, compaction, historian, other), each against the main request just
   * before it: the user pays for them too.
   */
  sideCost: ListCost
  /** cost plus sideCost. */
  sessionCost: ListCost
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

/**
 * Measures main requests in arrival order, each against the main request just before it, and prices the side
 * requests. `countText` counts the shared start of a differing element with the elements' own counter; a count of
 * cut text can differ by a token or two from what the whole element spends on the same characters (the cut may
 * split a token), which is the byte prefix's error per break.
 */
export function measureRequests(options: {
  requests: readonly MeasuredRequest[]
  sideRequests: readonly MeasuredRequest[]
  usableWindow: number
  contextWindow: number
  countText: (text: string) => number
}): RequestMetrics {
  const rows = options.requests.map((request, index): RequestRow => {
    const previous = options.requests[index - 1]
    // The first request is compared with nothing: no reusable prefix, and no share or break to report.
    const { comparison, ...prefix } = sharedPrefix(previous, request, options.countText)
    return {
      n: request.n,
      turn: request.turn,
      promptTokens: prefix.promptTokens,
      bytes: comparison.totalBytes,
      prefixShare: previous ? comparison.share : null,
      prefixBreak: previous ? comparison.isBreak : null,
      tokensAfterPrefix: prefix.promptTokens - prefix.elementTokens,
      sharedPrefixTokens: prefix.byteTokens,
    }
  })
  const cost = listCost((list) =>
    sum(rows.map((row) => callCost(row.promptTokens, shared(list, row.sharedPrefixTokens, row.promptTokens - row.tokensAfterPrefix), list))),
  )
  const sideCost = sideRequestCost(options)
  const tokens = rows.map((row) => row.promptTokens)
  const shares = rows.flatMap((row) => (row.prefixShare === null ? [] : [row.prefixShare]))
  const breaks = rows.filter((row) => row.prefixBreak === true)
  return {
    mainRequests: rows.length,
    promptTokensMean: mean(tokens) ?? 0,
    promptTokensMax: Math.max(0, ...tokens),
    promptTokensTotal: sum(tokens),
    tokensAfterPrefixTotal: sum(rows.map((row) => row.tokensAfterPrefix)),
    tokensAfterBytePrefixTotal: sum(rows.map((row) => row.promptTokens - row.sharedPrefixTokens)),
    cost,
    sideCost,
    sessionCost: listCost((list) => cost[list] + sideCost[list]),
    prefixShareMean: mean(shares),
    prefixShareMin: shares.length === 0 ? null : Math.min(...shares),
    prefixBreaks: breaks.length,
    prefixBreakAt: breaks.map((row) => row.n),
    overUsableWindow: rows.filter((row) => row.promptTokens > options.usableWindow).length,
    overContextWindow: rows.filter((row) => row.promptTokens > options.contextWindow).length,
    rows,
  }
}

/** Each side request priced against the latest main request before it (none before the first: all fresh). */
function sideRequestCost(options: {
  requests: readonly MeasuredRequest[]
  sideRequests: readonly MeasuredRequest[]
  countText: (text: string) => number
}): ListCost {
  const prefixes = options.sideRequests.map((request) => {
    const previous = options.requests.filter((main) => main.n < request.n).at(-1)
    return sharedPrefix(previous, request, options.countText)
  })
  return listCost((list) =>
    sum(prefixes.map((prefix) => callCost(prefix.promptTokens, shared(list, prefix.byteTokens, prefix.elementTokens), list))),
  )
}

/** A value per bench price list. */
function listCost(value: (list: BenchPriceList) => number): ListCost {
  return Object.fromEntries(BENCH_PRICE_LISTS.map((list) => [list, value(list)])) as ListCost
}

/** The cached part under a list: OpenAI caches the shared byte prefix, Anthropic whole shared messages. */
function shared(list: BenchPriceList, byteTokens: number, elementTokens: number): number {
  return list === "openai" ? byteTokens : elementTokens
}

/** A request's prompt tokens and the tokens it shares with `previous`, by whole elements and by bytes. */
function sharedPrefix(
  previous: MeasuredRequest | undefined,
  request: MeasuredRequest,
  countText: (text: string) => number,
): { comparison: PrefixComparison; promptTokens: number; elementTokens: number; byteTokens: number } {
  const comparison = comparePrefix({ previous: previous?.elements ?? [], current: request.elements })
  const elementTokens = sum(request.elementTokens.slice(0, comparison.matchingElements))
  return {
    comparison,
    promptTokens: sum(request.elementTokens),
    elementTokens,
    byteTokens: elementTokens + partialTokens(request, comparison, countText),
  }
}

/** Tokens of the shared start of the first differing element, at most that element's own count. */
function partialTokens(
  request: MeasuredRequest,
  comparison: PrefixComparison,
  countText: (text: string) => number,
): number {
  const element = request.elements[comparison.matchingElements]
  if (element === undefined || comparison.partialElementChars === 0) return 0
  const counted = countText(element.slice(0, comparison.partialElementChars))
  return Math.min(counted, request.elementTokens[comparison.matchingElements] ?? 0)
}

function callCost(promptTokens: number, sharedPrefixTokens: number, list: BenchPriceList): number {
  const { prices } = PRICE_LISTS[list]
  return promptCost(billedPrompt({ promptTokens, sharedPrefixTokens, cacheWarm: true, prices }), prices)
}

function sum(values: readonly number[]): number {
  return values.reduce((total, value) => total + value, 0)
}

function mean(values: readonly number[]): number | null {
  return values.length === 0 ? null : sum(values) / values.length
}
