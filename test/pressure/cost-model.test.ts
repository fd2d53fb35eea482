import { describe, expect, it } from "vitest"
import { billedPrompt, promptCost, sharedPrefixTokens } from "../../src/pressure/cost-model.js"
import { PRICE_LISTS, providerFamily } from "../../src/session/price-lists.js"

describe("providerFamily", () => {
  it.each([
    ["anthropic", "claude-sonnet-4-5", "anthropic"],
    ["openrouter", "anthropic/claude-opus-4.6", "anthropic"],
    ["openai", "gpt-5.2-codex", "openai"],
    ["azure", "gpt-4.1", "openai"],
    ["openai", "o4-mini", "openai"],
    ["google", "gemini-2.5-pro", "google"],
    ["google-vertex", "gemini-3-flash", "google"],
    ["ollama", "qwen3-coder:30b", "other"],
    [undefined, undefined, "other"],
  ] as const)("%s / %s is %s", (provider, model, family) => {
    expect(providerFamily(provider, model)).toBe(family)
  })
})

describe("billedPrompt and promptCost", () => {
  it("bills the shared prefix as a cached read and the rest as uncached (OpenAI: no write premium)", () => {
    const tokens = billedPrompt({ promptTokens: 10_000, sharedPrefixTokens: 8_000, cacheWarm: true, prices: PRICE_LISTS.openai.prices })
    expect(tokens).toEqual({ uncached: 2_000, cachedRead: 8_000, cacheWrite: 0 })
    expect(promptCost(tokens, PRICE_LISTS.openai.prices)).toBeCloseTo(2_000 + 800)
  })

  it("bills the fresh part as a cache write on Anthropic (1.25)", () => {
    const tokens = billedPrompt({ promptTokens: 10_000, sharedPrefixTokens: 8_000, cacheWarm: true, prices: PRICE_LISTS["anthropic-5m"].prices })
    expect(tokens).toEqual({ uncached: 0, cachedRead: 8_000, cacheWrite: 2_000 })
    expect(promptCost(tokens, PRICE_LISTS["anthropic-5m"].prices)).toBeCloseTo(2_500 + 800)
  })

  it("reads nothing from a cold cache, and never more than the prompt", () => {
    expect(billedPrompt({ promptTokens: 5_000, sharedPrefixTokens: 4_000, cacheWarm: false, prices: PRICE_LISTS.openai.prices })).toEqual({
      uncached: 5_000,
      cachedRead: 0,
      cacheWrite: 0,
    })
    expect(billedPrompt({ promptTokens: 5_000, sharedPrefixTokens: 9_000, cacheWarm: true, prices: PRICE_LISTS.openai.prices }).cachedRead).toBe(5_000)
  })
})

describe("sharedPrefixTokens", () => {
  it("counts what comes before the messages (system prompt, tools) as shared, wherever the messages first differ", () => {
    expect(sharedPrefixTokens({ previousTokens: 12_000, previousBytes: 48_000, divergence: 0, fixedTokens: 7_000 })).toBe(7_000)
    expect(sharedPrefixTokens({ previousTokens: 12_000, previousBytes: 48_000, divergence: 36_000, fixedTokens: 7_000 })).toBe(16_000)
    expect(sharedPrefixTokens({ previousTokens: 12_000, previousBytes: 48_000, divergence: null, fixedTokens: 7_000 })).toBe(19_000)
    expect(sharedPrefixTokens({ previousTokens: 12_000, previousBytes: 48_000, divergence: 0, fixedTokens: -300 })).toBe(0)
    expect(sharedPrefixTokens({ previousTokens: 0, previousBytes: 0, divergence: null, fixedTokens: 7_000 })).toBe(0)
  })

  it("is the previous prompt's tokens in proportion to the bytes before the first difference", () => {
    expect(sharedPrefixTokens({ previousTokens: 12_000, previousBytes: 48_000, divergence: 36_000 })).toBe(9_000)
  })

  it("is the whole previous prompt when it is a prefix, and nothing without one", () => {
    expect(sharedPrefixTokens({ previousTokens: 12_000, previousBytes: 48_000, divergence: null })).toBe(12_000)
    expect(sharedPrefixTokens({ previousTokens: 0, previousBytes: 0, divergence: null })).toBe(0)
    expect(sharedPrefixTokens({ previousTokens: 12_000, previousBytes: 48_000, divergence: 0 })).toBe(0)
  })

  it("clamps a divergence past the previous prompt's end to all of it", () => {
    expect(sharedPrefixTokens({ previousTokens: 12_000, previousBytes: 48_000, divergence: 96_000 })).toBe(12_000)
  })
})
