import type { TokenPrices } from "./cost-model.js"

/** What the rule weighed, recorded on the pass. Token amounts are estimates; costs are in uncached-token units. */
export type ExecuteEstimate = {
  /** Tokens the due work would free from every later prompt. */
  freedTokens: number
  /** Prompt tokens after the first byte the work would change: re-sent uncached (or written) once. */
  rewrittenTokens: number
  /**
   * What keeping the due work has cost since the last execute pass, this call included: at every call, the tokens an
   * execute would have freed, read from the cache.
   */
  carriedCost: number
  /** The one-off extra cost of the break: rewritten tokens at the write (or uncached) price instead of a cached read. */
  breakCost: number
  /**
   * What the agent's queued drops alone save over the calls expected before the next forced execute (they are one
   * lump, not material that keeps growing: held back, they would cost this at every one of those calls).
   */
  dropSavings: number
  /** Calls expected before usage reaches the force band, from the session's growth per call (at least 1). */
  expectedCalls: number
  /** True when the prompt cache has gone cold (idle past its TTL): the break costs nothing. */
  cacheCold: boolean
  pays: boolean
}

/**
 * Execute when it pays (DESIGN "Cost-aware timing"): due work (queued drops, a history fold, reclaimable output) is
 * applied once what keeping it has cost, read from the cache at every call since the last execute pass, has reached
 * what the break costs: re-sending the prompt after its first changed byte once at the write (or uncached) price
 * instead of a cached read. This balances the two costs of a sawtooth (the classic part-period rule), so breaks come
 * about every sqrt(2 × break / (read price × growth)) calls: rarely when the tail after the change is long. The agent's
 * queued drops are a lump rather than growth: they pay as soon as what they free, read at every call expected before
 * the next forced execute, outweighs the break, so an agent that cleans up early is rewarded. A cold cache makes any
 * due work free to apply. Pure.
 */
export function executePays(options: {
  freedTokens: number
  rewrittenTokens: number
  /** The carried cost of the passes since the last execute pass, before this one. */
  carriedBefore: number
  /** Of the freed tokens, what the landable queued drops free. */
  dropTokens: number
  /** The prompt's tokens now, where the force band starts, and the session's mean growth per call (0: unknown). */
  promptTokens: number
  forceTokens: number
  growthPerCall: number
  cacheCold: boolean
  prices: TokenPrices
}): ExecuteEstimate {
  const freedTokens = Math.max(0, options.freedTokens)
  const rewrittenTokens = Math.max(0, options.rewrittenTokens)
  const carriedCost = Math.max(0, options.carriedBefore) + freedTokens * options.prices.cachedRead
  const writePrice = Math.max(options.prices.cacheWrite, options.prices.uncached)
  const breakCost = options.cacheCold ? 0 : rewrittenTokens * (writePrice - options.prices.cachedRead)
  const room = Math.max(0, options.forceTokens - options.promptTokens)
  // Unknown growth: assume one call is left (the most cautious estimate: the drops must pay at once).
  const expectedCalls = options.growthPerCall > 0 ? Math.max(1, Math.floor(room / options.growthPerCall)) : 1
  const dropSavings = Math.min(Math.max(0, options.dropTokens), freedTokens) * options.prices.cachedRead * expectedCalls
  const pays = freedTokens > 0 && (carriedCost >= breakCost || dropSavings > breakCost)
  return { freedTokens, rewrittenTokens, carriedCost, breakCost, dropSavings, expectedCalls, cacheCold: options.cacheCold, pays }
}
