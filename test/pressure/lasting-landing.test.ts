import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { lastingLanding } from "../../src/pressure/lasting-landing.js"
import { PRICE_LISTS, type TokenPrices } from "../../src/session/price-lists.js"

// A 32k-class window: usable 27,904, threshold 65% (18,138), landing line 50% (13,952), a 2,000-token fixed prompt.
const base = { landingTokens: 13_952, thresholdTokens: 18_138, fixedTokens: 2_000, growthPerCall: 1_600 }

/** What the premium adds to a break, and what landing there saves in reads before the next crossing. */
const terms = (landing: number, prices: TokenPrices) => {
  const premium = prices.cacheWrite - prices.uncached
  const below = base.thresholdTokens - landing
  return { premiumCost: premium * (landing - base.fixedTokens), saved: (prices.cachedRead * below * below) / base.growthPerCall }
}

describe("lastingLanding", () => {
  it.each(["openai", "google"] as const)("keeps the landing line under %s's list (no write premium)", (list) => {
    expect(lastingLanding({ ...base, prices: PRICE_LISTS[list].prices })).toBe(base.landingTokens)
  })

  it.each([
    ["anthropic-5m", 12_000],
    ["anthropic-1h", 8_500],
  ] as const)("lands lower under %s, at the highest line whose reads before the next crossing pay the premium", (list, under) => {
    const prices = PRICE_LISTS[list].prices
    const landing = lastingLanding({ ...base, prices })
    expect(landing).toBeLessThan(under)
    expect(landing).toBeGreaterThan(base.fixedTokens)
    // It pays there, and would not a hundred tokens higher: the highest such line.
    const at = terms(landing, prices)
    expect(at.saved).toBeGreaterThanOrEqual(at.premiumCost)
    const higher = terms(landing + 100, prices)
    expect(higher.saved).toBeLessThan(higher.premiumCost)
  })

  it("keeps the landing line when the growth is unknown or the line already pays", () => {
    const prices = PRICE_LISTS["anthropic-1h"].prices
    expect(lastingLanding({ ...base, growthPerCall: 0, prices })).toBe(base.landingTokens)
    // A slow session: 10 tokens a call leave hundreds of calls to pay the premium back.
    expect(lastingLanding({ ...base, growthPerCall: 10, prices })).toBe(base.landingTokens)
  })

  it("never lands below the fixed prompt", () => {
    const prices = { uncached: 1, cachedRead: 0.1, cacheWrite: 50 }
    expect(lastingLanding({ ...base, growthPerCall: 50_000, prices })).toBeGreaterThanOrEqual(base.fixedTokens)
    expect(lastingLanding({ ...base, fixedTokens: 15_000, prices })).toBe(base.landingTokens)
  })

  const inputs = fc.record({
    landingTokens: fc.integer({ min: 1_000, max: 600_000 }),
    above: fc.integer({ min: 1, max: 400_000 }),
    fixedTokens: fc.integer({ min: 0, max: 60_000 }),
    growthPerCall: fc.integer({ min: 0, max: 50_000 }),
    cachedRead: fc.double({ min: 0.01, max: 1, noNaN: true }),
    premium: fc.double({ min: 0, max: 5, noNaN: true }),
  })
  type Input = { landingTokens: number; above: number; fixedTokens: number; growthPerCall: number; cachedRead: number; premium: number }
  const landingOf = (input: Input, premium = input.premium): number =>
    lastingLanding({
      landingTokens: input.landingTokens,
      thresholdTokens: input.landingTokens + input.above,
      fixedTokens: input.fixedTokens,
      growthPerCall: input.growthPerCall,
      prices: { uncached: 1, cachedRead: input.cachedRead, cacheWrite: 1 + premium },
    })

  it("stays between the fixed prompt and the landing line, and is the landing line exactly without a premium", () => {
    fc.assert(
      fc.property(inputs, (input) => {
        const landing = landingOf(input)
        expect(landing).toBeLessThanOrEqual(input.landingTokens)
        expect(landing).toBeGreaterThanOrEqual(Math.min(input.landingTokens, Math.ceil(input.fixedTokens)))
        expect(landingOf(input, 0)).toBe(input.landingTokens)
      }),
    )
  })

  it("lands no higher as the premium or the growth rises", () => {
    fc.assert(
      fc.property(inputs, fc.double({ min: 0, max: 3, noNaN: true }), fc.integer({ min: 0, max: 20_000 }), (input, more, faster) => {
        const landing = landingOf(input)
        expect(landingOf(input, input.premium + more)).toBeLessThanOrEqual(landing)
        expect(landingOf({ ...input, growthPerCall: input.growthPerCall + faster })).toBeLessThanOrEqual(
          input.growthPerCall === 0 ? input.landingTokens : landing,
        )
      }),
    )
  })

  it("is deterministic: the same inputs give the same line", () => {
    fc.assert(
      fc.property(inputs, (input) => {
        expect(landingOf(input)).toBe(landingOf(input))
      }),
    )
  })
})
