import { PRICE_LISTS, type PriceListName } from "../../src/session/price-lists.js"

/**
 * The price lists the end-to-end benches run magic-context under and price every run with: Anthropic's 5-minute
 * cache (write 1.25×), its 1-hour cache (write 2×) and OpenAI's (no write premium); all read at 0.1×. Google's list
 * has OpenAI's prices, so it adds no row.
 */
export const BENCH_PRICE_LISTS = ["anthropic-5m", "anthropic-1h", "openai"] as const satisfies readonly PriceListName[]
export type BenchPriceList = (typeof BENCH_PRICE_LISTS)[number]

/** A number per bench price list (a cost, a saving). */
export type ListCost = Record<BenchPriceList, number>

/** The environment variable that picks the lists (comma-separated names; default: every one). */
export const PRICE_LISTS_VARIABLE = "BENCH_PRICE_LISTS"

/** The lists named in `value` in table order, or all of them when it is unset or empty; an unknown name throws. */
export function benchPriceListsOf(value: string | undefined): BenchPriceList[] {
  const named = (value ?? "").split(",").map((name) => name.trim()).filter((name) => name !== "")
  if (named.length === 0) return [...BENCH_PRICE_LISTS]
  const unknown = named.filter((name) => !(BENCH_PRICE_LISTS as readonly string[]).includes(name))
  if (unknown.length > 0) {
    throw new Error(`${PRICE_LISTS_VARIABLE}: unknown list ${unknown.join(", ")} (lists: ${BENCH_PRICE_LISTS.join(", ")})`)
  }
  return BENCH_PRICE_LISTS.filter((list) => named.includes(list))
}

/** The provider id both benches give the mock model (OpenCode's `mock/mock-model`, Pi's `--provider mock`). */
export const MOCK_PROVIDER = "mock"

/** The environment variable that turns `lasting_landing` on for every run (`BENCH_LASTING_LANDING=1`). */
export const LASTING_LANDING_VARIABLE = "BENCH_LASTING_LANDING"

/**
 * magic-context's config for a run under `list`: `settings` plus `models["mock/*"].price_list`, so the engine decides
 * under the list the run is priced with (the mock provider is not in the price table, which would otherwise give it
 * the most conservative list), and `lasting_landing` when BENCH_LASTING_LANDING is 1.
 */
export function priceListConfig(list: BenchPriceList, settings: Record<string, unknown> = {}): string {
  const lasting = process.env[LASTING_LANDING_VARIABLE] === "1" ? { lasting_landing: true } : {}
  return `${JSON.stringify({ ...settings, ...lasting, models: { [`${MOCK_PROVIDER}/*`]: { price_list: list } } })}\n`
}

/** A list's write and read prices in one phrase: "write 2×, read 0.1×". */
export function describeBenchList(list: BenchPriceList): string {
  const { cacheWrite, cachedRead } = PRICE_LISTS[list].prices
  return `write ${cacheWrite}×, read ${cachedRead}×`
}
