import type { TokenPrices } from "../session/price-lists.js"

/** What the rule weighed, recorded on the pass. Token amounts are estimates; costs are in uncached-token units. */
export type ExecuteEstimate = {
  /** Tokens the due work would free from every later prompt. */
  freedTokens: number
  /**
   * Prompt tokens after the first byte the work would change, re-sent uncached (or written) once, counted on the
   * prompt before the work (`decideWork`): an upper bound, since the re-sent tail is that less what the work frees.
   */
  rewrittenTokens: number
  /** The one-off extra cost of the break: rewritten tokens at the write (or uncached) price instead of a cached read. */
  breakCost: number
  /**
   * What a fold's carried cost is weighed against: the break at the uncached price on the prompt before the work (the
   * upper bound, the margin an early fold must clear under every list), plus the write premium on the tail the work
   * leaves (rewritten less freed), the only tokens the cache writes again.
   */
  foldBreakCost: number
  /**
   * Calls since the last execute pass that folded history (or the session's start), this one included: an execute that
   * only landed drops leaves the conversation a fold would take where it was.
   */
  callsSinceFold: number
  /**
   * What keeping the due work has cost since the last fold, this call included: the tokens it frees, read from the
   * cache at every call since, taken as having grown evenly from nothing (so half of them on average).
   */
  carriedCost: number
  /**
   * Calls expected before the threshold forces an execute anyway, from the session's growth per call, and never more
   * than the session has made so far (at least 1).
   */
  expectedCalls: number
  /** What the freed tokens save, read from the cache at each of those calls: the most executing now can gain. */
  forwardSavings: number
  /** Of that, what the agent's queued drops alone save. */
  dropSavings: number
  /**
   * What keeping the queued drops has cost since the last execute pass, this call included, taken as having grown
   * evenly from nothing: it must cover the break too.
   */
  dropCarriedCost: number
  /** True when the prompt cache has gone cold (idle past its TTL): the break costs nothing. */
  cacheCold: boolean
  pays: boolean
}

/**
 * Execute when it pays (DESIGN "Cost-aware timing"), for work below the threshold: the break (re-sending the prompt
 * after its first changed byte once, at the write or uncached price instead of a cached read) must be covered
 * - by what the work saves over the calls expected before the threshold forces an execute anyway (an execute now
 *   that the threshold would have done a few calls later gains only those calls: in a small window the threshold
 *   comes soon, and folding early would only trade detail for nothing), and
 * - for work that grows (a history fold), also by what keeping it has cost since the last fold, read from
 *   what it frees now as if it had grown evenly (no per-call record to keep, the same after a restart). This balances
 *   the two costs of a sawtooth (the classic part-period rule): breaks come about every
 *   sqrt(2 × break / (read price × growth)) calls, rarely when the tail after the change is long. Here the break
 *   is the uncached one on the prompt before the fold (the bound, the margin for the detail a fold gives up) plus the
 *   write premium on the tail the fold leaves, the tokens the cache really writes again: counted on the whole prompt,
 *   the premium kept a 200k session under the 1-hour list from any priced fold (decision 0028).
 * The agent's queued drops accumulate too, between execute passes: they pay when the calls before the threshold cover
 * the break and keeping them since the last execute has cost it as well (the fold's balance, counted from the last
 * execute). An agent that drops as it goes otherwise lands every few calls on a break of its own: at 200k under
 * OpenAI's list 51 breaks, and the cooperative agent of `bench:pi` cost more than the passive one. A cold cache makes
 * the break free, so queued drops land there at once. Pure.
 */
export function executePays(options: {
  freedTokens: number
  rewrittenTokens: number
  /** Calls since the last execute pass that folded history (or the session's start), this one included (at least 1). */
  callsSinceFold: number
  /** Of the freed tokens, what the landable queued drops free. */
  dropTokens: number
  /** The prompt's tokens now, where the threshold is, and the session's mean growth per call (0: unknown). */
  promptTokens: number
  thresholdTokens: number
  growthPerCall: number
  /** Calls the session has made so far, this one included (absent: no bound). */
  callsSoFar?: number
  /** Calls since the last execute pass (or the session's start), this one included (absent: callsSinceFold). */
  callsSinceExecute?: number
  cacheCold: boolean
  prices: TokenPrices
}): ExecuteEstimate {
  const { prices } = options
  const freedTokens = Math.max(0, options.freedTokens)
  const rewrittenTokens = Math.max(0, options.rewrittenTokens)
  const writePrice = Math.max(prices.cacheWrite, prices.uncached)
  const breakCost = options.cacheCold ? 0 : rewrittenTokens * (writePrice - prices.cachedRead)
  const foldBreakCost = options.cacheCold
    ? 0
    : rewrittenTokens * (prices.uncached - prices.cachedRead) + Math.max(0, rewrittenTokens - freedTokens) * (writePrice - prices.uncached)
  const callsSinceFold = Math.max(1, Math.floor(options.callsSinceFold))
  const carriedCost = (freedTokens * prices.cachedRead * (callsSinceFold + 1)) / 2
  const room = Math.max(0, options.thresholdTokens - options.promptTokens)
  // Unknown growth: assume one call is left (the most cautious estimate: the work must pay at once).
  // A session is expected to go on about as long again as it has run: a slow-growing one (an agent that drops what
  // it is done with) would otherwise count on hundreds of calls it may never make.
  const toThreshold = options.growthPerCall > 0 ? Math.floor(room / options.growthPerCall) : 1
  const expectedCalls = Math.max(1, Math.min(toThreshold, Math.floor(options.callsSoFar ?? toThreshold)))
  const forwardSavings = freedTokens * prices.cachedRead * expectedCalls
  const dropTokens = Math.min(Math.max(0, options.dropTokens), freedTokens)
  const dropSavings = dropTokens * prices.cachedRead * expectedCalls
  const callsSinceExecute = Math.max(1, Math.floor(options.callsSinceExecute ?? callsSinceFold))
  const dropCarriedCost = (dropTokens * prices.cachedRead * (callsSinceExecute + 1)) / 2
  const dropsPay = dropSavings >= breakCost && dropCarriedCost >= breakCost
  const pays = freedTokens > 0 && (dropsPay || (forwardSavings >= breakCost && carriedCost >= foldBreakCost))
  return {
    freedTokens,
    rewrittenTokens,
    breakCost,
    foldBreakCost,
    callsSinceFold,
    carriedCost,
    expectedCalls,
    forwardSavings,
    dropSavings,
    dropCarriedCost,
    cacheCold: options.cacheCold,
    pays,
  }
}
