import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { DEFAULT_PRICES } from "../../src/pressure/cost-model.js"
import { executePays } from "../../src/pressure/execute-pays.js"

const base = {
  carriedBefore: 0,
  dropTokens: 0,
  promptTokens: 70_000,
  forceTokens: 166_000,
  growthPerCall: 1_000,
  cacheCold: false,
  prices: DEFAULT_PRICES.openai,
}

describe("executePays", () => {
  it("pays once keeping the work has cost, in cached reads, what re-sending the changed tail once costs", () => {
    // The break re-sends 5,000 tokens at 0.9 more than a cached read: 4,500. Freeing 4,000 saves 400 per call.
    const first = executePays({ ...base, freedTokens: 4_000, rewrittenTokens: 5_000 })
    expect(first).toMatchObject({ pays: false })
    expect(first.carriedCost).toBeCloseTo(400)
    expect(first.breakCost).toBeCloseTo(4_500)
    // After ten calls that kept it (4,000 carried), the eleventh pays.
    expect(executePays({ ...base, carriedBefore: 3_600, freedTokens: 4_000, rewrittenTokens: 5_000 }).pays).toBe(false)
    expect(executePays({ ...base, carriedBefore: 4_100, freedTokens: 4_000, rewrittenTokens: 5_000 })).toMatchObject({ pays: true })
  })

  it("rewards a large queued drop at once: what it frees over the calls before the forced execute pays the break", () => {
    // 96 calls before the force band (96,000 / 1,000): 33,000 × 0.1 × 96 = 316,800 against 18,000.
    const drop = executePays({ ...base, freedTokens: 33_000, dropTokens: 33_000, rewrittenTokens: 20_000 })
    expect(drop).toMatchObject({ expectedCalls: 96, pays: true })
    expect(drop.dropSavings).toBeCloseTo(316_800)
    // The same tokens from a history fold wait for the part-period balance; and a drop just before the forced
    // execute (one call left) does not pay on its own.
    expect(executePays({ ...base, freedTokens: 33_000, rewrittenTokens: 20_000 }).pays).toBe(false)
    expect(executePays({ ...base, freedTokens: 5_000, dropTokens: 5_000, rewrittenTokens: 20_000, promptTokens: 165_500 })).toMatchObject({
      expectedCalls: 1,
      pays: false,
    })
  })

  it("unknown growth counts one call left for a drop", () => {
    expect(executePays({ ...base, growthPerCall: 0, freedTokens: 5_000, dropTokens: 5_000, rewrittenTokens: 20_000 })).toMatchObject({
      expectedCalls: 1,
      pays: false,
    })
  })

  it("prices the write premium: the same work that pays on OpenAI does not yet on Anthropic", () => {
    const work = { ...base, carriedBefore: 4_200, freedTokens: 4_000, rewrittenTokens: 5_000 }
    expect(executePays(work).pays).toBe(true)
    expect(executePays({ ...work, prices: DEFAULT_PRICES.anthropic }).pays).toBe(false)
  })

  it("a cold cache makes any due work free, and no work never pays", () => {
    expect(executePays({ ...base, freedTokens: 10, rewrittenTokens: 20_000, cacheCold: true })).toMatchObject({ breakCost: 0, pays: true })
    expect(executePays({ ...base, freedTokens: 0, rewrittenTokens: 0, cacheCold: true }).pays).toBe(false)
    expect(executePays({ ...base, carriedBefore: 1e9, freedTokens: 0, rewrittenTokens: 0 }).pays).toBe(false)
  })

  it("reads negative inputs as none", () => {
    expect(executePays({ ...base, carriedBefore: -5, freedTokens: -1, dropTokens: -1, rewrittenTokens: -1 })).toMatchObject({
      freedTokens: 0,
      rewrittenTokens: 0,
      carriedCost: 0,
      breakCost: 0,
      pays: false,
    })
  })

  it("is monotone: more freed or more carried never stops a paying pass, a longer tail never starts one", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 100_000 }),
        fc.integer({ min: 0, max: 100_000 }),
        fc.integer({ min: 0, max: 100_000 }),
        fc.integer({ min: 0, max: 50_000 }),
        fc.constantFrom(DEFAULT_PRICES.openai, DEFAULT_PRICES.anthropic, DEFAULT_PRICES.google),
        (freed, extra, rewritten, carried, prices) => {
          const at = (f: number, r: number, c: number) =>
            executePays({ ...base, carriedBefore: c, prices, freedTokens: f, dropTokens: f, rewrittenTokens: r }).pays
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
