/**
 * What a prompt costs, by token class and provider family: the prices of an uncached input token, a cached read and
 * a cache write, relative to the family's uncached input price (1). Pure data and arithmetic; the config may
 * override any price per model pattern.
 */

/** Provider families whose prompt caches price differently. */
export type ProviderFamily = "anthropic" | "openai" | "google" | "other"

/** Relative prices per prompt token class (uncached input = 1). */
export type TokenPrices = {
  /** A prompt token not served from the cache. */
  uncached: number
  /** A prompt token served from the cache. */
  cachedRead: number
  /** A prompt token written to the cache (the uncached price plus the family's write premium). */
  cacheWrite: number
}

/**
 * Defaults per family: Anthropic charges 1.25× for a cache write and 0.1× for a read; OpenAI and Google have no
 * write premium and read at 0.1× and 0.25×. An unknown provider is priced like OpenAI.
 */
export const DEFAULT_PRICES: Readonly<Record<ProviderFamily, TokenPrices>> = {
  anthropic: { uncached: 1, cachedRead: 0.1, cacheWrite: 1.25 },
  openai: { uncached: 1, cachedRead: 0.1, cacheWrite: 1 },
  google: { uncached: 1, cachedRead: 0.25, cacheWrite: 1 },
  other: { uncached: 1, cachedRead: 0.1, cacheWrite: 1 },
}

/** How long each family keeps an idle prompt cache, in ms (Anthropic's and OpenAI's default 5 minutes). */
export const DEFAULT_CACHE_TTL_MS: Readonly<Record<ProviderFamily, number>> = {
  anthropic: 5 * 60_000,
  openai: 5 * 60_000,
  google: 5 * 60_000,
  other: 5 * 60_000,
}

/** The family of a provider/model pair, from the provider id first, then the model id (a gateway serving claude-*). */
export function providerFamily(providerID: string | undefined, modelID: string | undefined): ProviderFamily {
  const provider = (providerID ?? "").toLowerCase()
  const model = (modelID ?? "").toLowerCase()
  if (provider.includes("anthropic") || /(^|\/)claude/.test(model)) return "anthropic"
  if (provider.includes("openai") || /(^|\/)(gpt-|o\d|codex)/.test(model)) return "openai"
  if (provider.includes("google") || provider.includes("vertex") || /(^|\/)gemini/.test(model)) return "google"
  return "other"
}

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
 * The tokens of a prompt's prefix shared with the previous prompt, from the byte where the two first differ (null:
 * none does, the previous prompt is a prefix of this one): the previous prompt's tokens in proportion to the bytes
 * before that point. An estimate (tokens are not spread evenly over bytes); 0 without a previous prompt.
 */
export function sharedPrefixTokens(options: { previousTokens: number; previousBytes: number; divergence: number | null }): number {
  const { previousTokens, previousBytes, divergence } = options
  if (previousTokens <= 0 || previousBytes <= 0) return 0
  if (divergence === null) return previousTokens
  return Math.round((previousTokens * Math.min(Math.max(0, divergence), previousBytes)) / previousBytes)
}
