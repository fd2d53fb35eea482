import { billedPrompt, promptCost } from "./cost-model.js"
import type { TokenPrices } from "../session/price-lists.js"

/** One model call of a session as its pass recorded it: what was sent, what of it the cache served, what the host had. */
export type RecordedCall = {
  /** When the pass ran (ms). */
  at: number
  /** The prompt sent, in tokens (the pass's billed total). */
  promptTokens: number
  /** Of it, the prefix read from the cache (0 after a cold cache or on the first call). */
  cachedTokens: number
  /** What the host alone would have sent at this call (its whole transcript and fixed prompt), or null: not known. */
  hostAloneTokens: number | null
}

/** A session's estimated prompt cost with magic-context and without it, under one price list, in uncached-token units. */
export type SessionCost = {
  calls: number
  /** The requests as sent: each call's cached prefix at the read price, the rest written or uncached. */
  withPlugin: number
  /**
   * The same calls as the host alone sends them: an append-only transcript whose previous prompt is read from the cache
   * while it is warm (the calls closer than the cache lifetime), the rest written or uncached. Null when a call's
   * transcript size is not known.
   */
  hostAlone: number | null
}

/**
 * Prices a session's recorded calls under `prices`, and the same calls as the host alone would have sent them. The
 * host alone never breaks its prefix, so each call reads the previous one's prompt from the cache (when the gap is
 * within `cacheTtlMs`) and pays the rest; that is the cost magic-context is measured against. The host's own
 * compaction is not modelled: past the window the host alone would have compacted and sent less.
 */
export function sessionCost(options: { calls: readonly RecordedCall[]; prices: TokenPrices; cacheTtlMs: number }): SessionCost {
  const { calls, prices } = options
  let withPlugin = 0
  let hostAlone: number | null = 0
  let previous: RecordedCall | null = null
  for (const call of calls) {
    withPlugin += callCost(call.promptTokens, call.cachedTokens, prices)
    if (hostAlone !== null && call.hostAloneTokens !== null) {
      const warm = previous !== null && previous.hostAloneTokens !== null && call.at - previous.at <= options.cacheTtlMs
      hostAlone += callCost(call.hostAloneTokens, warm ? (previous?.hostAloneTokens ?? 0) : 0, prices)
    } else hostAlone = null
    previous = call
  }
  return { calls: calls.length, withPlugin, hostAlone }
}

/** What the last execute pass cost and saves, under `prices`. */
export type ExecuteCost = {
  /** Its request: the prefix the cache still served at the read price, the rest (from the change on) written. */
  cost: number
  /** What it takes out of every call from it on: the tokens it freed at the read price. */
  savesPerCall: number
  /** Its saving so far: `savesPerCall` over its own call and every call since. */
  savedSoFar: number
}

/** The cost and the saving of an execute pass's request under `prices`. */
export function executeCost(options: {
  call: Pick<RecordedCall, "promptTokens" | "cachedTokens">
  freedTokens: number
  callsSince: number
  prices: TokenPrices
}): ExecuteCost {
  const { call, prices } = options
  const savesPerCall = Math.max(0, options.freedTokens) * prices.cachedRead
  return {
    cost: callCost(call.promptTokens, call.cachedTokens, prices),
    savesPerCall,
    savedSoFar: savesPerCall * (Math.max(0, options.callsSince) + 1),
  }
}

/** One call's prompt cost under `prices`: its cached prefix at the read price, the rest written or uncached. */
export function callCost(promptTokens: number, cachedTokens: number, prices: TokenPrices): number {
  return promptCost(billedPrompt({ promptTokens, sharedPrefixTokens: cachedTokens, cacheWarm: true, prices }), prices)
}
