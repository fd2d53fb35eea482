import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { derivedProtectedTokens } from "../../src/reduce/protected-window.js"

describe("derivedProtectedTokens", () => {
  it.each([
    [200_000, 16_000],
    [1_000_000, 50_000],
    [32_000, 4_372],
    [64_000, 7_141],
    [128_000, 11_665],
    [400_000, 26_136],
    [2_000_000, 81_675],
  ])("derives %i usable tokens -> %i protected", (usable, expected) => {
    expect(derivedProtectedTokens(usable)).toBe(expected)
  })

  it.each([
    [8_000, 2_000],
    [12_000, 2_183],
    [7_999, 2_000],
    [6_000, 1_500],
    [4_000, 1_000],
    [1_000, 250],
    [1, 0],
    [0, 0],
    [-5, 0],
  ])("clamps %i usable tokens to %i (at least 2,000, at most a quarter)", (usable, expected) => {
    expect(derivedProtectedTokens(usable)).toBe(expected)
  })

  it("grows with the window, more slowly than the window, within its clamps", () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 10_000_000 }), fc.integer({ min: 1, max: 10_000_000 }), (a, b) => {
        const [small, large] = a <= b ? [a, b] : [b, a]
        expect(derivedProtectedTokens(small)).toBeLessThanOrEqual(derivedProtectedTokens(large))
        const tokens = derivedProtectedTokens(large)
        expect(Number.isInteger(tokens)).toBe(true)
        expect(tokens).toBeLessThanOrEqual(Math.round(large * 0.25))
        if (large >= 8_000) expect(tokens).toBeGreaterThanOrEqual(2_000)
        if (small >= 8_000 && large > small) expect(tokens / large).toBeLessThanOrEqual(
          derivedProtectedTokens(small) / small + 1e-9,
        )
      }),
    )
  })
})
