import { describe, expect, it } from "vitest"
import { enginePricesOf } from "../../../bench/e2e/engine-prices.js"
import { billedPrompt, promptCost } from "../../../src/pressure/cost-model.js"
import { PRICE_LISTS } from "../../../src/session/price-lists.js"

/** A billed record as a pass writes it, under a list's prices. */
const billed = (list: keyof typeof PRICE_LISTS, promptTokens: number, sharedPrefixTokens: number) => {
  const { prices } = PRICE_LISTS[list]
  const tokens = billedPrompt({ promptTokens, sharedPrefixTokens, cacheWarm: true, prices })
  return { ...tokens, cost: promptCost(tokens, prices), readPrice: prices.cachedRead }
}

describe("enginePricesOf", () => {
  it("recovers the write price of each list from the passes' billed records", () => {
    expect(enginePricesOf([billed("anthropic-1h", 1000, 0), billed("anthropic-1h", 1200, 1000)])).toEqual({ cacheWrite: 2, cachedRead: 0.1 })
    expect(enginePricesOf([billed("anthropic-5m", 1200, 1000)])).toEqual({ cacheWrite: 1.25, cachedRead: 0.1 })
    expect(enginePricesOf([billed("openai", 1200, 1000)])).toEqual({ cacheWrite: 1, cachedRead: 0.1 })
  })

  it("tells nothing from no records, or from records that were all read from the cache", () => {
    expect(enginePricesOf([])).toEqual({ cacheWrite: null, cachedRead: null })
    expect(enginePricesOf([billed("anthropic-1h", 1000, 1000)])).toEqual({ cacheWrite: null, cachedRead: 0.1 })
  })
})
