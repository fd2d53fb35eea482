import type { TokenPrices } from "./cost-model.js"

/** What the rule weighed, recorded on the pass. Token amounts are estimates; costs are in uncached-token units. */
export type ExecuteEstimate = {
  /** Tokens the due work would free from every later prompt. */
  freedTokens: number
  /** Prompt tokens after the first byte the work would change: re-sent uncached (or written) once. */
  rewrittenTokens: number
  /** Calls expected before the threshold forces an execute anyway (at least 1). */
  expectedCalls: number
  /** The one-off extra cost of the break: rewritten tokens at the write (or uncached) price instead of a cached read. */
  breakCost: number
  /** What the freed tokens save over the expected calls at the cached-read price. */
  savings: number
  /** True when the prompt cache has gone cold (idle past its TTL): the break costs nothing. */
  cacheCold: boolean
  pays: boolean
}

/**
 * Execute when it pays: a pass below the threshold applies its due work (queued drops, reclaimable output, a pending
 * history fold) when what that work frees, read from the cache at every call until the threshold would force an
 * execute anyway, is worth more than re-sending the prompt after the first changed byte once. The calls expected are
 * the room left below the threshold over the session's measured growth per call. A cold cache makes any due work
 * free to apply. Pure.
 */
export function executePays(options: {
  freedTokens: number
  rewrittenTokens: number
  promptTokens: number
  thresholdTokens: number
  /** The session's mean prompt growth per call (tokens); 0 or less when unknown. */
  growthPerCall: number
  cacheCold: boolean
  prices: TokenPrices
}): ExecuteEstimate {
  const freedTokens = Math.max(0, options.freedTokens)
  const rewrittenTokens = Math.max(0, options.rewrittenTokens)
  const room = Math.max(0, options.thresholdTokens - options.promptTokens)
  // Unknown growth: assume the room lasts one call (the most cautious estimate, so the break must pay at once).
  const expectedCalls = options.growthPerCall > 0 ? Math.max(1, Math.floor(room / options.growthPerCall)) : 1
  const writePrice = Math.max(options.prices.cacheWrite, options.prices.uncached)
  const breakCost = options.cacheCold ? 0 : rewrittenTokens * (writePrice - options.prices.cachedRead)
  // The freed tokens would have been cached reads on every later call; after the break they are never sent.
  const savings = freedTokens * options.prices.cachedRead * expectedCalls
  const pays = freedTokens > 0 && savings > breakCost
  return { freedTokens, rewrittenTokens, expectedCalls, breakCost, savings, cacheCold: options.cacheCold, pays }
}
