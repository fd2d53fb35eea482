import fc from "fast-check"
import { describe, expect, it } from "vitest"
import {
  CONSERVATIVE_LIST,
  describePrices,
  PRICE_LIST_NAMES,
  PRICE_LISTS,
  resolvePrices,
  type ProviderFamily,
} from "../../src/session/price-lists.js"

describe("PRICE_LISTS", () => {
  it.each([
    ["anthropic-5m", 0.1, 1.25, "5m"],
    ["anthropic-1h", 0.1, 2, "1h"],
    ["openai", 0.1, 1, "5m"],
    ["google", 0.1, 1, "5m"],
  ] as const)("prices %s: read %s, write %s, cache %s", (name, cachedRead, cacheWrite, cacheTtl) => {
    expect(PRICE_LISTS[name]).toMatchObject({ name, prices: { uncached: 1, cachedRead, cacheWrite }, cacheTtl })
  })

  it("never has a write cheaper than a read, nor a read dearer than an uncached token", () => {
    for (const name of PRICE_LIST_NAMES) {
      const { prices } = PRICE_LISTS[name]
      expect(prices.cacheWrite).toBeGreaterThanOrEqual(prices.cachedRead)
      expect(prices.cachedRead).toBeLessThanOrEqual(prices.uncached)
    }
  })
})

describe("CONSERVATIVE_LIST", () => {
  it("is the list with the highest write premium", () => {
    const highest = Math.max(...PRICE_LIST_NAMES.map((name) => PRICE_LISTS[name].prices.cacheWrite))
    expect(CONSERVATIVE_LIST.prices.cacheWrite).toBe(highest)
    expect(CONSERVATIVE_LIST.name).toBe("anthropic-1h")
  })
})

describe("resolvePrices", () => {
  it.each<[ProviderFamily, string]>([
    ["anthropic", "anthropic-5m"],
    ["openai", "openai"],
    ["google", "google"],
  ])("gives the %s family its list", (family, list) => {
    expect(resolvePrices({ family, override: null })).toEqual({
      list,
      origin: "family",
      prices: PRICE_LISTS[list as keyof typeof PRICE_LISTS].prices,
      overridden: [],
      problem: null,
    })
  })

  it("gives an unknown provider the most conservative list and says so", () => {
    const resolved = resolvePrices({ family: "other", override: null })
    expect(resolved).toMatchObject({ list: "anthropic-1h", origin: "unknown-provider", prices: { cacheWrite: 2 } })
    expect(describePrices(resolved)).toBe(
      "anthropic-1h (provider not in the price table: the most conservative list, the highest write premium): " +
        "cached read 0.1×, cache write 2× the uncached input price",
    )
  })

  it("takes the list the config names over the family's, and the config's prices on top", () => {
    const resolved = resolvePrices({ family: "other", override: { price_list: "openai", prices: { cached_read: 0.05 } } })
    expect(resolved).toEqual({ list: "openai", origin: "config", prices: { uncached: 1, cachedRead: 0.05, cacheWrite: 1 }, overridden: ["cached_read"], problem: null })
    expect(describePrices(resolved)).toBe("openai (named in the config; cached_read from the config): cached read 0.05×, cache write 1× the uncached input price")
  })

  it.each([
    [{ cache_write: 0.05 }, "anthropic", "a cache write (0.05) below a cached read (0.1)"],
    [{ cached_read: 1.5 }, "anthropic", "a cache write (1.25) below a cached read (1.5)"],
    [{ cached_read: 0.5, cache_write: 0.2 }, "openai", "a cache write (0.2) below a cached read (0.5)"],
  ] as const)("sets aside %o on the %s list: %s", (prices, family, said) => {
    const resolved = resolvePrices({ family, override: { prices } })
    const list = family === "anthropic" ? PRICE_LISTS["anthropic-5m"] : PRICE_LISTS.openai
    expect(resolved.prices).toEqual(list.prices)
    expect(resolved.overridden).toEqual([])
    expect(resolved.problem).toContain(said)
    expect(resolved.problem).toContain(`the ${list.name} list's prices apply`)
  })

  it("keeps every override whose write is at least its read", () => {
    const family = fc.constantFrom<ProviderFamily>("anthropic", "openai", "google", "other")
    const price = fc.double({ min: 0, max: 10, noNaN: true })
    fc.assert(
      fc.property(family, price, price, (provider, read, write) => {
        const resolved = resolvePrices({ family: provider, override: { prices: { cached_read: Math.min(read, write), cache_write: Math.max(read, write) } } })
        expect(resolved.problem).toBeNull()
        expect(resolved.prices).toEqual({ uncached: 1, cachedRead: Math.min(read, write), cacheWrite: Math.max(read, write) })
      }),
    )
  })
})
