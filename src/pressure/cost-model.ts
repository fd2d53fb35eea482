/**
 * What a prompt costs, by token class and provider family: the prices of an uncached input token, a cached read and
 * a cache write, relative to the family's uncached input price (1). Pure arithmetic; the prices themselves are the
 * price lists' (`session/price-lists.ts`).
 */
import type { TokenPrices } from "../session/price-lists.js"

/** One call's prompt, split by how the provider bills it. */
export type PromptTokens = { uncached: number; cachedRead: number; cacheWrite: number }

/** The cost of one call's prompt, in uncached-input-token units. */
export function promptCost(tokens: PromptTokens, prices: TokenPrices): number {
  return tokens.uncached * prices.uncached + tokens.cachedRead * prices.cachedRead + tokens.cacheWrite * prices.cacheWrite
}

/**
 * A call's prompt tokens as a provider with prefix caching bills them: the part it shares with the previous call is
 * a cached read (when the cache is warm), the rest is written to the cache on families with a write premium and
 * uncached otherwise.
 */
export function billedPrompt(options: { promptTokens: number; sharedPrefixTokens: number; cacheWarm: boolean; prices: TokenPrices }): PromptTokens {
  const shared = options.cacheWarm ? Math.min(options.sharedPrefixTokens, options.promptTokens) : 0
  const fresh = options.promptTokens - shared
  return options.prices.cacheWrite > options.prices.uncached
    ? { uncached: 0, cachedRead: shared, cacheWrite: fresh }
    : { uncached: fresh, cachedRead: shared, cacheWrite: 0 }
}

/**
 * The tokens of a prompt's prefix shared with the previous prompt: what comes before the messages (`fixedTokens`: the
 * system prompt and tools, the same from call to call as far as the plugin sees), then, from the messages' byte where
 * the two first differ (null: none does, the previous messages are a prefix of these), the previous messages' tokens in
 * proportion to the bytes before that point. An estimate (tokens are not spread evenly over bytes); 0 without a
 * previous prompt.
 */
export function sharedPrefixTokens(options: { previousTokens: number; previousBytes: number; divergence: number | null; fixedTokens?: number }): number {
  const { previousTokens, previousBytes, divergence } = options
  if (previousTokens <= 0 || previousBytes <= 0) return 0
  const fixed = Math.max(0, options.fixedTokens ?? 0)
  if (divergence === null) return fixed + previousTokens
  return fixed + Math.round((previousTokens * Math.min(Math.max(0, divergence), previousBytes)) / previousBytes)
}
