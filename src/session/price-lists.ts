/**
 * The price lists: what a provider charges for each class of prompt token, relative to its uncached input price (1),
 * and how long it keeps an idle prompt cache. The one table of prices; the config may name another list per model
 * and override its prices (`resolvePrices`). Pure data and arithmetic.
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

/** The family of a provider/model pair, from the provider id first, then the model id (a gateway serving claude-*). */
export function providerFamily(providerID: string | undefined, modelID: string | undefined): ProviderFamily {
  const provider = (providerID ?? "").toLowerCase()
  const model = (modelID ?? "").toLowerCase()
  if (provider.includes("anthropic") || /(^|\/)claude/.test(model)) return "anthropic"
  if (provider.includes("openai") || /(^|\/)(gpt-|o\d|codex)/.test(model)) return "openai"
  if (provider.includes("google") || provider.includes("vertex") || /(^|\/)gemini/.test(model)) return "google"
  return "other"
}

/** The lists a model may run under. */
export const PRICE_LIST_NAMES = ["anthropic-5m", "anthropic-1h", "openai", "google"] as const
export type PriceListName = (typeof PRICE_LIST_NAMES)[number]

/** One provider's prompt prices and the cache lifetime they are for. */
export type PriceList = {
  name: PriceListName
  prices: TokenPrices
  /** How long the provider keeps an idle prompt cache under this list (a config duration). */
  cacheTtl: string
  /** Where the numbers come from, in one line. */
  source: string
}

export const PRICE_LISTS: Readonly<Record<PriceListName, PriceList>> = {
  "anthropic-5m": {
    name: "anthropic-5m",
    prices: { uncached: 1, cachedRead: 0.1, cacheWrite: 1.25 },
    cacheTtl: "5m",
    source: "Anthropic prompt caching, the default 5-minute cache: write 1.25× the input price, read 0.1×",
  },
  "anthropic-1h": {
    name: "anthropic-1h",
    prices: { uncached: 1, cachedRead: 0.1, cacheWrite: 2 },
    cacheTtl: "1h",
    source: "Anthropic prompt caching, the 1-hour cache: write 2× the input price, read 0.1× whatever the lifetime",
  },
  openai: {
    name: "openai",
    prices: { uncached: 1, cachedRead: 0.1, cacheWrite: 1 },
    cacheTtl: "5m",
    source: "OpenAI automatic prompt caching: no write premium, cached input 0.1× the input price",
  },
  google: {
    name: "google",
    prices: { uncached: 1, cachedRead: 0.1, cacheWrite: 1 },
    cacheTtl: "5m",
    source: "Gemini implicit caching: the cache is created at the standard input price, cached tokens 90% off",
  },
}

/** The list each known provider family runs under unless the config names another. */
const FAMILY_LISTS: Readonly<Record<Exclude<ProviderFamily, "other">, PriceListName>> = {
  anthropic: "anthropic-5m",
  openai: "openai",
  google: "google",
}

/**
 * The list an unknown provider runs under: the most conservative one, the highest write premium (a break costs the
 * most there, so no pass is chosen on savings another list would not give); the first in table order on a tie.
 */
export const CONSERVATIVE_LIST: PriceList = PRICE_LIST_NAMES.map((name) => PRICE_LISTS[name]).reduce((highest, list) =>
  list.prices.cacheWrite > highest.prices.cacheWrite ? list : highest,
)

/** Where the prices in force came from. */
export type PriceOrigin =
  /** The provider family's list. */
  | "family"
  /** The list the config names for the model (`models.<pattern>.price_list`). */
  | "config"
  /** The provider is not one the table knows: the most conservative list. */
  | "unknown-provider"
  /** A replay with no provider (a given window, a transcript that records no model): the Lab's list. */
  | "replay"

/** The prices a session runs under: the list, where it came from, and the config's overrides on top. */
export type PricesInForce = {
  list: PriceListName
  origin: PriceOrigin
  prices: TokenPrices
  /** The price keys the config overrode (`cached_read`, `cache_write`), in that order. */
  overridden: string[]
  /** Why the config's prices were set aside for the list's (null: they were not). */
  problem: string | null
}

/** The config's per-model choice of prices (`models.<pattern>.price_list` and `.prices`). */
export type PriceOverride = {
  price_list?: PriceListName | undefined
  prices?: { cached_read?: number | undefined; cache_write?: number | undefined } | undefined
}

/**
 * The prices a model runs under: the list the config names, else its family's, else the most conservative; then the
 * config's prices on top. Overrides that leave a cache write cheaper than a cached read are set aside with a problem
 * (the config's schema refuses the other bad values before they get here).
 */
export function resolvePrices(options: { family: ProviderFamily; override: PriceOverride | null }): PricesInForce {
  const { family, override } = options
  const named = override?.price_list
  const list = named !== undefined ? PRICE_LISTS[named] : family === "other" ? CONSERVATIVE_LIST : PRICE_LISTS[FAMILY_LISTS[family]]
  const origin: PriceOrigin = named !== undefined ? "config" : family === "other" ? "unknown-provider" : "family"
  const base = { list: list.name, origin }
  const cachedRead = override?.prices?.cached_read
  const cacheWrite = override?.prices?.cache_write
  const overridden = [...(cachedRead === undefined ? [] : ["cached_read"]), ...(cacheWrite === undefined ? [] : ["cache_write"])]
  if (overridden.length === 0) return { ...base, prices: list.prices, overridden, problem: null }
  const prices = { uncached: list.prices.uncached, cachedRead: cachedRead ?? list.prices.cachedRead, cacheWrite: cacheWrite ?? list.prices.cacheWrite }
  if (prices.cacheWrite >= prices.cachedRead) return { ...base, prices, overridden, problem: null }
  const problem =
    `prices give a cache write (${prices.cacheWrite}) below a cached read (${prices.cachedRead}); ` +
    `expected cache_write at least cached_read: the ${list.name} list's prices apply`
  return { ...base, prices: list.prices, overridden: [], problem }
}

/** The list's name and where it came from, as the status report and replay say it. */
export function describePrices(prices: Pick<PricesInForce, "list" | "origin" | "overridden" | "prices">): string {
  const { cachedRead, cacheWrite } = prices.prices
  const origin =
    prices.origin === "unknown-provider"
      ? "provider not in the price table: the most conservative list, the highest write premium"
      : prices.origin === "config"
        ? "named in the config"
        : prices.origin === "replay"
          ? "a replay without a provider: the Lab's list"
          : "the provider's list"
  const overridden = prices.overridden.length > 0 ? `; ${prices.overridden.join(" and ")} from the config` : ""
  return `${prices.list} (${origin}${overridden}): cached read ${cachedRead}×, cache write ${cacheWrite}× the uncached input price`
}
