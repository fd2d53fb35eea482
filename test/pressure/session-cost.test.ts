import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { callCost, executeCost, sessionCost, type RecordedCall } from "../../src/pressure/session-cost.js"
import { PRICE_LISTS } from "../../src/session/price-lists.js"

const OPENAI = PRICE_LISTS.openai.prices
const ANTHROPIC = PRICE_LISTS["anthropic-5m"].prices
const FIVE_MINUTES = 300_000

describe("callCost", () => {
  it("reads the cached prefix at the read price and pays the rest uncached, or written under a write premium", () => {
    expect(callCost(10_000, 8_000, OPENAI)).toBeCloseTo(2_000 + 800)
    expect(callCost(10_000, 8_000, ANTHROPIC)).toBeCloseTo(2_000 * 1.25 + 800)
  })
})

describe("sessionCost", () => {
  const calls: RecordedCall[] = [
    { at: 0, promptTokens: 10_000, cachedTokens: 0, hostAloneTokens: 10_000 },
    { at: 1_000, promptTokens: 12_000, cachedTokens: 10_000, hostAloneTokens: 12_000 },
    // An execute pass: the plugin's prompt shrank and was written again from its change on.
    { at: 2_000, promptTokens: 6_000, cachedTokens: 2_000, hostAloneTokens: 14_000 },
    { at: 3_000, promptTokens: 7_000, cachedTokens: 6_000, hostAloneTokens: 15_000 },
  ]

  it("prices the recorded calls and the host alone's append-only calls under one list", () => {
    const cost = sessionCost({ calls, prices: ANTHROPIC, cacheTtlMs: FIVE_MINUTES })
    expect(cost.calls).toBe(4)
    expect(cost.withPlugin).toBeCloseTo(10_000 * 1.25 + (2_000 * 1.25 + 1_000) + (4_000 * 1.25 + 200) + (1_000 * 1.25 + 600))
    expect(cost.hostAlone).toBeCloseTo(10_000 * 1.25 + (2_000 * 1.25 + 1_000) + (2_000 * 1.25 + 1_200) + (1_000 * 1.25 + 1_400))
  })

  it("lets the host alone's cache go cold after a gap longer than the cache lifetime", () => {
    const gap = [calls[0], { ...(calls[1] as RecordedCall), at: FIVE_MINUTES + 1, cachedTokens: 0 }] as RecordedCall[]
    const cost = sessionCost({ calls: gap, prices: OPENAI, cacheTtlMs: FIVE_MINUTES })
    expect(cost.hostAlone).toBe(22_000)
    expect(cost.withPlugin).toBe(22_000)
  })

  it("says the host alone is not known when a call's transcript size is not", () => {
    const unknown = calls.map((call, index) => (index === 2 ? { ...call, hostAloneTokens: null } : call))
    expect(sessionCost({ calls: unknown, prices: OPENAI, cacheTtlMs: FIVE_MINUTES }).hostAlone).toBeNull()
  })

  it("costs the same as the host alone when the plugin sent what the host would have, whatever the list", () => {
    const session = fc.array(fc.record({ gap: fc.integer({ min: 0, max: 600_000 }), growth: fc.integer({ min: 0, max: 5_000 }) }), { minLength: 1, maxLength: 40 })
    const list = fc.constantFrom(...Object.values(PRICE_LISTS))
    fc.assert(
      fc.property(session, list, (steps, { prices }) => {
        let at = 0
        let tokens = 1_000
        let previous: RecordedCall | null = null
        const recorded: RecordedCall[] = []
        for (const step of steps) {
          at += step.gap
          tokens += step.growth
          const warm = previous !== null && at - previous.at <= FIVE_MINUTES
          const call: RecordedCall = { at, promptTokens: tokens, cachedTokens: warm ? (previous?.promptTokens ?? 0) : 0, hostAloneTokens: tokens }
          recorded.push(call)
          previous = call
        }
        const cost = sessionCost({ calls: recorded, prices, cacheTtlMs: FIVE_MINUTES })
        expect(cost.withPlugin).toBeCloseTo(cost.hostAlone ?? Number.NaN, 6)
      }),
    )
  })

  it("never prices a call below its read price nor above its write price", () => {
    const call = fc.record({ prompt: fc.integer({ min: 0, max: 1_000_000 }), cached: fc.integer({ min: 0, max: 1_000_000 }) })
    fc.assert(
      fc.property(call, fc.constantFrom(...Object.values(PRICE_LISTS)), ({ prompt, cached }, { prices }) => {
        const cost = callCost(prompt, cached, prices)
        expect(cost).toBeGreaterThanOrEqual(prompt * prices.cachedRead - 1e-6)
        expect(cost).toBeLessThanOrEqual(prompt * Math.max(prices.cacheWrite, prices.uncached) + 1e-6)
      }),
    )
  })
})

describe("executeCost", () => {
  it("prices the execute's request and saves what it freed at the read price on its call and every call since", () => {
    const cost = executeCost({ call: { promptTokens: 6_000, cachedTokens: 2_000 }, freedTokens: 8_000, callsSince: 3, prices: ANTHROPIC })
    expect(cost.cost).toBeCloseTo(4_000 * 1.25 + 200)
    expect(cost.savesPerCall).toBeCloseTo(800)
    expect(cost.savedSoFar).toBeCloseTo(3_200)
  })

  it("saves nothing when the pass freed nothing", () => {
    expect(executeCost({ call: { promptTokens: 6_000, cachedTokens: 0 }, freedTokens: -50, callsSince: 0, prices: OPENAI }).savedSoFar).toBe(0)
  })
})
