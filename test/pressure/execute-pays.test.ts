import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { DEFAULT_PRICES } from "../../src/pressure/cost-model.js"
import { executePays } from "../../src/pressure/execute-pays.js"

const base = {
  promptTokens: 20_000,
  thresholdTokens: 26_000,
  growthPerCall: 500,
  cacheCold: false,
  prices: DEFAULT_PRICES.openai,
}

describe("executePays", () => {
  it("pays when the freed tokens, read from cache over the calls left, outweigh re-sending the changed tail once", () => {
    // 12 calls left (6,000 / 500); freeing 4,000 saves 4,000 × 0.1 × 12 = 4,800; the break re-sends 5,000 at 0.9 = 4,500.
    const estimate = executePays({ ...base, freedTokens: 4_000, rewrittenTokens: 5_000 })
    expect(estimate).toMatchObject({ expectedCalls: 12, pays: true })
    expect(estimate.savings).toBeCloseTo(4_800)
    expect(estimate.breakCost).toBeCloseTo(4_500)
  })

  it("does not pay when the break sits early in the prompt (a divergence near the top re-sends everything)", () => {
    expect(executePays({ ...base, freedTokens: 4_000, rewrittenTokens: 19_000 }).pays).toBe(false)
  })

  it("prices the write premium: the same work that pays on OpenAI does not on Anthropic", () => {
    const work = { ...base, freedTokens: 4_000, rewrittenTokens: 5_000 }
    expect(executePays(work).pays).toBe(true)
    expect(executePays({ ...work, prices: DEFAULT_PRICES.anthropic }).pays).toBe(false)
  })

  it("a cold cache makes any due work free, and no work never pays", () => {
    expect(executePays({ ...base, freedTokens: 10, rewrittenTokens: 20_000, cacheCold: true })).toMatchObject({ breakCost: 0, pays: true })
    expect(executePays({ ...base, freedTokens: 0, rewrittenTokens: 0, cacheCold: true }).pays).toBe(false)
  })

  it("unknown growth assumes one call is left (the break must pay at once)", () => {
    expect(executePays({ ...base, growthPerCall: 0, freedTokens: 4_000, rewrittenTokens: 5_000 })).toMatchObject({ expectedCalls: 1, pays: false })
  })

  it("is monotone: freeing more never turns a paying pass into one that does not, and a later break never costs more", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 100_000 }),
        fc.integer({ min: 0, max: 100_000 }),
        fc.integer({ min: 0, max: 100_000 }),
        fc.integer({ min: 0, max: 5_000 }),
        (freed, extra, rewritten, growth) => {
          const at = (f: number, r: number) => executePays({ ...base, growthPerCall: growth, freedTokens: f, rewrittenTokens: r }).pays
          if (at(freed, rewritten)) expect(at(freed + extra, rewritten)).toBe(true)
          if (at(freed, rewritten + extra)) expect(at(freed, rewritten)).toBe(true)
        },
      ),
    )
  })
})
