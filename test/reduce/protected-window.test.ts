import fc from "fast-check"
import { describe, expect, it } from "vitest"
import {
  derivedProtectedTokens,
  PROTECTED_MAX_SHARE,
  protectedClampMessage,
  protectedWindow,
} from "../../src/reduce/protected-window.js"

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

describe("protectedWindow", () => {
  it.each<[string, number | null, number, { tokens: number; clampedFrom: number | null }]>([
    ["derives it when none is configured", null, 200_000, { tokens: 16_000, clampedFrom: null }],
    ["keeps a configured size up to a quarter of the window", 50_000, 200_000, { tokens: 50_000, clampedFrom: null }],
    ["keeps a configured 0", 0, 200_000, { tokens: 0, clampedFrom: null }],
    ["clamps one over a quarter to a quarter", 50_001, 200_000, { tokens: 50_000, clampedFrom: 50_001 }],
    ["clamps one larger than the window", 1_000_000, 32_000, { tokens: 8_000, clampedFrom: 1_000_000 }],
    ["clamps a quarter of an odd window down", 10_000, 32_001, { tokens: 8_000, clampedFrom: 10_000 }],
    ["clamps the largest number a config may hold", Number.MAX_SAFE_INTEGER, 128_000, { tokens: 32_000, clampedFrom: Number.MAX_SAFE_INTEGER }],
  ])("%s", (_name, configured, usableTokens, expected) => {
    expect(protectedWindow({ configured, usableTokens })).toEqual(expected)
    expect(PROTECTED_MAX_SHARE).toBe(0.25)
  })

  it("never protects more than a quarter of the window, whatever is configured", () => {
    fc.assert(
      fc.property(fc.nat(), fc.integer({ min: 1, max: 10_000_000 }), (configured, usableTokens) => {
        const { tokens, clampedFrom } = protectedWindow({ configured, usableTokens })
        expect(tokens).toBeLessThanOrEqual(usableTokens * PROTECTED_MAX_SHARE)
        expect(clampedFrom).toBe(tokens === configured ? null : configured)
      }),
    )
  })
})

describe("protectedClampMessage", () => {
  it("says what was configured, the window and what is protected instead", () => {
    expect(protectedClampMessage({ clampedFrom: 1_000_000, tokens: 8_000, usableTokens: 32_000 })).toBe(
      "protected_tokens 1,000,000 is more than a quarter of the usable window (32,000 tokens); the protected window " +
        "is clamped to 8,000 tokens, so an execute pass can still bring the prompt under the threshold",
    )
  })
})
