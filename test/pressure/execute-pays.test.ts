import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { PRICE_LISTS } from "../../src/session/price-lists.js"
import { executePays } from "../../src/pressure/execute-pays.js"

const base = {
  callsSinceFold: 1,
  dropTokens: 0,
  promptTokens: 70_000,
  thresholdTokens: 130_000,
  growthPerCall: 1_000,
  cacheCold: false,
  prices: PRICE_LISTS.openai.prices,
}

describe("executePays", () => {
  it("pays once keeping the work has cost, in cached reads, what re-sending the changed tail once costs", () => {
    // The break re-sends 5,000 tokens at 0.9 more than a cached read: 4,500. Freeing 4,000 saves 400 per call.
    const first = executePays({ ...base, freedTokens: 4_000, rewrittenTokens: 5_000 })
    expect(first).toMatchObject({ callsSinceFold: 1, pays: false })
    expect(first.carriedCost).toBeCloseTo(400)
    expect(first.breakCost).toBeCloseTo(4_500)
    // Grown evenly over n calls, 4,000 freed now has cost 400 × (n + 1) / 2: 4,400 after 21 calls, 4,600 after 22.
    expect(executePays({ ...base, callsSinceFold: 21, freedTokens: 4_000, rewrittenTokens: 5_000 }).pays).toBe(false)
    const paying = executePays({ ...base, callsSinceFold: 22, freedTokens: 4_000, rewrittenTokens: 5_000 })
    expect(paying.pays).toBe(true)
    expect(paying.carriedCost).toBeCloseTo(4_600)
  })

  it("breaks about every sqrt(2 × break / (read × growth)) calls when the work grows evenly", () => {
    // 800 tokens of foldable material a call, a 16,000-token tail after the change: sqrt(2 × 14,400 / 80) = 19 calls.
    const calls = Array.from({ length: 60 }, (_, index) => index + 1)
    const first = calls.find((n) => executePays({ ...base, callsSinceFold: n, freedTokens: 800 * n, rewrittenTokens: 16_000 }).pays)
    expect(first).toBe(19)
  })

  it("lands a large queued drop within a few calls: what it frees over the calls before the threshold pays the break", () => {
    // 60 calls before the threshold (60,000 / 1,000): 33,000 × 0.1 × 60 = 198,000 against 18,000; kept since the last
    // execute 10 calls, it has cost 33,000 × 0.1 × 11 / 2 = 18,150 (one call: 3,300, so it waits).
    const drop = executePays({ ...base, freedTokens: 33_000, dropTokens: 33_000, rewrittenTokens: 20_000, callsSinceExecute: 10 })
    expect(drop).toMatchObject({ expectedCalls: 60, pays: true })
    expect(drop.dropSavings).toBeCloseTo(198_000)
    expect(executePays({ ...base, freedTokens: 33_000, dropTokens: 33_000, rewrittenTokens: 20_000, callsSinceExecute: 1 }).pays).toBe(false)
    // The same tokens from a history fold wait for the part-period balance; and a drop just before the threshold
    // (one call left) does not pay on its own.
    expect(executePays({ ...base, freedTokens: 33_000, rewrittenTokens: 20_000 }).pays).toBe(false)
    expect(executePays({ ...base, freedTokens: 5_000, dropTokens: 5_000, rewrittenTokens: 20_000, promptTokens: 129_500 })).toMatchObject({
      expectedCalls: 1,
      pays: false,
    })
  })

  it("does not fold early what the threshold would fold within a few calls, however long the work was carried", () => {
    // Carried long enough (4,000 × 0.1 × 41 / 2 = 8,200 against 4,500), but two calls before the threshold an execute
    // now gains 4,000 × 0.1 × 2 = 800.
    const near = executePays({ ...base, callsSinceFold: 40, freedTokens: 4_000, rewrittenTokens: 5_000, promptTokens: 128_000 })
    expect(near).toMatchObject({ expectedCalls: 2, pays: false })
    expect(near.forwardSavings).toBeCloseTo(800)
    expect(executePays({ ...base, callsSinceFold: 40, freedTokens: 4_000, rewrittenTokens: 5_000 }).pays).toBe(true)
  })

  it("counts on no more calls ahead than the session has made: a drop that pays over 60 calls waits in a young one", () => {
    // 1,500 tokens dropped save 150 per call; the break re-sends 16,000 at 0.9 more than a read: 14,400.
    // (Kept long since the last execute, so only the calls ahead decide.)
    const drop = { ...base, freedTokens: 1_500, dropTokens: 1_500, rewrittenTokens: 16_000, growthPerCall: 1_000, callsSinceExecute: 1_000 }
    expect(executePays(drop)).toMatchObject({ expectedCalls: 60, pays: false })
    expect(executePays({ ...drop, growthPerCall: 100 })).toMatchObject({ expectedCalls: 600, pays: true })
    // Slow growth (an agent that drops as it goes) in a session 40 calls old: 40 calls ahead, 6,000 saved.
    expect(executePays({ ...drop, growthPerCall: 100, callsSoFar: 40 })).toMatchObject({ expectedCalls: 40, pays: false })
    expect(executePays({ ...drop, growthPerCall: 100, callsSoFar: 96 })).toMatchObject({ expectedCalls: 96, pays: true })
  })

  it("unknown growth counts one call left for a drop", () => {
    expect(executePays({ ...base, growthPerCall: 0, freedTokens: 5_000, dropTokens: 5_000, rewrittenTokens: 20_000 })).toMatchObject({
      expectedCalls: 1,
      pays: false,
    })
  })

  it("prices the write premium: the same work that pays on OpenAI does not yet on Anthropic", () => {
    const work = { ...base, callsSinceFold: 22, freedTokens: 4_000, rewrittenTokens: 5_000 }
    expect(executePays(work).pays).toBe(true)
    expect(executePays({ ...work, prices: PRICE_LISTS["anthropic-5m"].prices }).pays).toBe(false)
  })

  it("weighs a fold's carried cost against the write premium on the tail it leaves, not on what it frees", () => {
    // The 1-hour list; an 81,000-token tail after the change, 50,000 of it folded away. The forward saving covers the
    // bound (50,000 × 0.1 × 60 calls = 300,000 against 81,000 × 1.9 = 153,900). The carried cost, 50,000 × 0.1 ×
    // (n + 1) / 2, is weighed against 81,000 × 0.9 + 31,000 × 1 = 103,900: 102,500 at n = 40, 105,000 at n = 41.
    const fold = { ...base, freedTokens: 50_000, rewrittenTokens: 81_000, prices: PRICE_LISTS["anthropic-1h"].prices }
    expect(executePays({ ...fold, callsSinceFold: 40 })).toMatchObject({ expectedCalls: 60, pays: false })
    const paying = executePays({ ...fold, callsSinceFold: 41 })
    expect(paying.pays).toBe(true)
    expect(paying.breakCost).toBeCloseTo(153_900)
    expect(paying.foldBreakCost).toBeCloseTo(103_900)
    // Weighed against the whole tail at the write premium it would have waited until n = 61.
    expect(paying.carriedCost).toBeLessThan(paying.breakCost)
    // Under OpenAI's list (no premium) the fold's break is the bound, as before.
    const openai = executePays({ ...fold, callsSinceFold: 41, prices: PRICE_LISTS.openai.prices })
    expect(openai.foldBreakCost).toBeCloseTo(openai.breakCost)
  })

  it("never weighs a fold against more than the bound, nor less than the bound at the uncached price", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 200_000 }),
        fc.integer({ min: 0, max: 200_000 }),
        fc.constantFrom(PRICE_LISTS.openai.prices, PRICE_LISTS["anthropic-5m"].prices, PRICE_LISTS["anthropic-1h"].prices),
        (freedTokens, rewrittenTokens, prices) => {
          const estimate = executePays({ ...base, freedTokens, rewrittenTokens, prices })
          expect(estimate.foldBreakCost).toBeLessThanOrEqual(estimate.breakCost + 1e-6)
          expect(estimate.foldBreakCost).toBeGreaterThanOrEqual(rewrittenTokens * (prices.uncached - prices.cachedRead) - 1e-6)
        },
      ),
    )
  })

  it("lets queued drops wait until keeping them since the last execute has cost the break, under every list", () => {
    // 33,000 dropped, 20,000 re-sent. Keeping the drops costs 33,000 × 0.1 × (n + 1) / 2 since the last execute:
    // 16,500 at n = 9, 18,150 at n = 10; 36,300 at n = 21, 37,950 at n = 22, 39,600 at n = 23.
    const drop = { ...base, freedTokens: 33_000, dropTokens: 33_000, rewrittenTokens: 20_000 }
    // OpenAI's list: the break is 20,000 × (1 − 0.1) = 18,000.
    expect(executePays({ ...drop, callsSinceExecute: 9 })).toMatchObject({ breakCost: 18_000, pays: false })
    expect(executePays({ ...drop, callsSinceExecute: 10 }).pays).toBe(true)
    // The 1-hour list: 20,000 × (2 − 0.1) = 38,000, so they wait longer.
    const hour = { ...drop, prices: PRICE_LISTS["anthropic-1h"].prices }
    expect(executePays({ ...hour, callsSinceExecute: 21 })).toMatchObject({ breakCost: 38_000, pays: false })
    expect(executePays({ ...hour, callsSinceExecute: 21 }).dropCarriedCost).toBeCloseTo(36_300)
    expect(executePays({ ...hour, callsSinceExecute: 22 }).pays).toBe(false)
    expect(executePays({ ...hour, callsSinceExecute: 23 }).pays).toBe(true)
    // A cold cache makes the break free: they land at once.
    expect(executePays({ ...hour, callsSinceExecute: 1, cacheCold: true })).toMatchObject({ breakCost: 0, pays: true })
  })

  it("never stops queued drops paying as calls since the last execute go by", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 100_000 }),
        fc.integer({ min: 0, max: 100_000 }),
        fc.integer({ min: 1, max: 500 }),
        fc.integer({ min: 0, max: 500 }),
        fc.constantFrom(PRICE_LISTS.openai.prices, PRICE_LISTS["anthropic-5m"].prices, PRICE_LISTS["anthropic-1h"].prices),
        (dropTokens, rewrittenTokens, callsSinceExecute, more, prices) => {
          const work = { ...base, freedTokens: dropTokens, dropTokens, rewrittenTokens, prices }
          if (executePays({ ...work, callsSinceExecute }).pays) expect(executePays({ ...work, callsSinceExecute: callsSinceExecute + more }).pays).toBe(true)
        },
      ),
    )
  })

  it("a cold cache makes any due work free, and no work never pays", () => {
    expect(executePays({ ...base, freedTokens: 10, rewrittenTokens: 20_000, cacheCold: true })).toMatchObject({ breakCost: 0, pays: true })
    expect(executePays({ ...base, freedTokens: 0, rewrittenTokens: 0, cacheCold: true }).pays).toBe(false)
    expect(executePays({ ...base, callsSinceFold: 1e9, freedTokens: 0, rewrittenTokens: 0 }).pays).toBe(false)
  })

  it("reads negative inputs as none", () => {
    expect(executePays({ ...base, callsSinceFold: -5, freedTokens: -1, dropTokens: -1, rewrittenTokens: -1 })).toMatchObject({
      callsSinceFold: 1,
      freedTokens: 0,
      rewrittenTokens: 0,
      carriedCost: 0,
      breakCost: 0,
      pays: false,
    })
  })

  it("is monotone: more freed or more calls carried never stop a paying pass, a longer tail never starts one", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 100_000 }),
        fc.integer({ min: 0, max: 100_000 }),
        fc.integer({ min: 0, max: 100_000 }),
        fc.integer({ min: 1, max: 500 }),
        fc.constantFrom(PRICE_LISTS.openai.prices, PRICE_LISTS["anthropic-5m"].prices, PRICE_LISTS["anthropic-1h"].prices, PRICE_LISTS.google.prices),
        (freed, extra, rewritten, carried, prices) => {
          const at = (f: number, r: number, c: number) =>
            executePays({ ...base, callsSinceFold: c, prices, freedTokens: f, dropTokens: f, rewrittenTokens: r }).pays
          if (at(freed, rewritten, carried)) {
            expect(at(freed + extra, rewritten, carried)).toBe(true)
            expect(at(freed, rewritten, carried + extra)).toBe(true)
          }
          if (at(freed, rewritten + extra, carried)) expect(at(freed, rewritten, carried)).toBe(true)
        },
      ),
    )
  })
})
