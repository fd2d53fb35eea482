import { describe, expect, it } from "vitest"
import { defaultConfig, type Config } from "../../src/config/schema.js"
import { fixedWindow, landingClamp, landingClampMessage, modelOverride, resolveWindow } from "../../src/pressure/model-window.js"
import { reasoningRuleById } from "../../src/session/reasoning-rules.js"

const config = (overrides: Partial<Config> = {}): Config => ({ ...defaultConfig(), ...overrides })

const CLAUDE = { context: 500_000, output: 16_000, execute_threshold: 70, cache_ttl: "1h", prices: { cached_read: 0.08 } }

describe("modelOverride", () => {
  const models: Config["models"] = {
    "anthropic/claude-*": CLAUDE,
    "gpt-4.1": { context: 1_000_000 },
    "*-mini": { execute_threshold: 50 },
    "openai/*": { execute_threshold: 60 },
  }

  it.each<[string, string, unknown]>([
    ["anthropic", "claude-sonnet-4", CLAUDE],
    ["Anthropic", "Claude-Opus-4", CLAUDE],
    ["openrouter", "gpt-4.1", { context: 1_000_000 }],
    ["openai", "gpt-4.1", { context: 1_000_000 }],
    ["openai", "gpt-4x1", { execute_threshold: 60 }],
    ["openai", "o4-mini", { execute_threshold: 50 }],
    ["google", "gemini-2.5-pro", null],
    ["openrouter", "anthropic/claude-sonnet-4", CLAUDE],
  ])("picks the first pattern matching %s/%s", (providerID, modelID, expected) => {
    expect(modelOverride(config({ models }), providerID, modelID)).toEqual(expected)
  })

  it("treats regular-expression characters in a pattern literally", () => {
    const literal = config({ models: { "a+b(c)[d]": { context: 5_000 } } })
    expect(modelOverride(literal, "p", "a+b(c)[d]")).toEqual({ context: 5_000 })
    expect(modelOverride(literal, "p", "aab(c)[d]")).toBeNull()
  })
})

describe("resolveWindow", () => {
  it("takes the context and output of the matching config override first", () => {
    const window = resolveWindow({
      providerID: "anthropic",
      modelID: "claude-sonnet-4",
      hostLimits: { context: 200_000, output: 64_000 },
      config: config({ models: { "anthropic/*": CLAUDE } }),
    })
    expect(window).toEqual({
      usableTokens: 484_000,
      contextTokens: 500_000,
      outputReserve: 16_000,
      thresholdPercent: 70,
      cacheTtlMs: 3_600_000,
      protectedTokens: 29_912,
      protectedClampedFrom: null,
      // 484,000 at 70% = 338,800: 15% history, 5% pins.
      historyBudgetTokens: 50_820,
      landingTokens: 242_000,
      lastingLanding: false,
      // The drain's exit, 60% of 484,000; reminders 1%.
      ceilingTokens: 290_400,
      reminderBudgetTokens: 4_840,
      pinBudgetTokens: 16_940,
      source: "config",
      // Anthropic's prices, the override's cache-read price on top.
      family: "anthropic",
      prices: { uncached: 1, cachedRead: 0.08, cacheWrite: 1.25 },
      priceList: { list: "anthropic-5m", origin: "family", overridden: ["cached_read"], problem: null },
      reasoning: reasoningRuleById("anthropic-thinking"),
      reasoningSource: "table",
    })
  })

  it("takes the reasoning rule from the table by the host's API, or from the config's per-model override", () => {
    const model = { providerID: "work", modelID: "claude-fable-5-1", hostLimits: null }
    expect(resolveWindow({ ...model, config: config({}), hostApi: "@ai-sdk/anthropic" }).reasoning.id).toBe("anthropic-prefix-check")
    expect(resolveWindow({ ...model, config: config({}) }).reasoning.id).toBe("none")
    const overridden = resolveWindow({ ...model, config: config({ models: { "work/*": { reasoning: "anthropic-thinking" } } }) })
    expect(overridden.reasoning.id).toBe("anthropic-thinking")
    expect(overridden.reasoningSource).toBe("config")
  })

  it("takes the host's limits when no override names a context", () => {
    const window = resolveWindow({
      providerID: "openai",
      modelID: "gpt-5",
      hostLimits: { context: 272_000, output: 16_000 },
      config: config({ models: { "openai/*": { output: 8_000 } } }),
    })
    expect(window).toMatchObject({
      usableTokens: 264_000,
      contextTokens: 272_000,
      outputReserve: 8_000,
      source: "host",
    })
  })

  it.each([
    [200_000, 8_000, 192_000, 8_000],
    [200_000, 32_000, 168_000, 32_000],
    [200_000, 64_000, 168_000, 32_000],
    [400_000, 128_000, 368_000, 32_000],
    [10_000, 0, 10_000, 0],
    [1_000, 4_000, 1, 4_000],
  ])("reserves min(output, 32,000): context %i, output %i -> usable %i", (context, output, usable, reserve) => {
    const window = resolveWindow({ providerID: "p", modelID: "m", hostLimits: { context, output }, config: config() })
    expect([window.usableTokens, window.outputReserve]).toEqual([usable, reserve])
  })

  it("falls back to a 128k context with a 4,096-token output reserve", () => {
    expect(resolveWindow({ providerID: "p", modelID: "m", hostLimits: null, config: config() })).toEqual({
      usableTokens: 123_904,
      contextTokens: 128_000,
      outputReserve: 4_096,
      thresholdPercent: 65,
      cacheTtlMs: 300_000,
      protectedTokens: 11_400,
      protectedClampedFrom: null,
      // 123,904 at 65% = 80,537.6: 15% -> 12,081, 5% -> 4,027.
      historyBudgetTokens: 12_081,
      landingTokens: 61_952,
      lastingLanding: false,
      ceilingTokens: 68_147,
      reminderBudgetTokens: 1_239,
      pinBudgetTokens: 4_027,
      source: "fallback",
      // A provider the price table does not know: the list with the highest write premium.
      family: "other",
      prices: { uncached: 1, cachedRead: 0.1, cacheWrite: 2 },
      priceList: { list: "anthropic-1h", origin: "unknown-provider", overridden: [], problem: null },
      reasoning: reasoningRuleById("none"),
      reasoningSource: "table",
    })
  })

  it.each<[string, Partial<Config>, { thresholdPercent: number; cacheTtlMs: number; protectedTokens: number }]>([
    ["the defaults", {}, { thresholdPercent: 65, cacheTtlMs: 300_000, protectedTokens: 16_000 }],
    [
      "a top-level threshold",
      { execute_threshold: 80 },
      { thresholdPercent: 80, cacheTtlMs: 300_000, protectedTokens: 16_000 },
    ],
    [
      "a top-level cache_ttl",
      { cache_ttl: "90s" },
      { thresholdPercent: 65, cacheTtlMs: 90_000, protectedTokens: 16_000 },
    ],
    [
      "protected_tokens",
      { protected_tokens: 5_000 },
      { thresholdPercent: 65, cacheTtlMs: 300_000, protectedTokens: 5_000 },
    ],
    ["protected_tokens 0", { protected_tokens: 0 }, { thresholdPercent: 65, cacheTtlMs: 300_000, protectedTokens: 0 }],
    [
      "a per-model threshold and cache_ttl over the top-level ones",
      { execute_threshold: 80, cache_ttl: "90s", models: { "p/m": { execute_threshold: 55, cache_ttl: "1h" } } },
      { thresholdPercent: 55, cacheTtlMs: 3_600_000, protectedTokens: 16_000 },
    ],
  ])("applies %s", (_name, overrides, expected) => {
    const window = resolveWindow({
      providerID: "p",
      modelID: "m",
      hostLimits: { context: 208_000, output: 8_000 },
      config: config(overrides),
    })
    expect(window).toMatchObject({ usableTokens: 200_000, ...expected })
  })
})

describe("resolveWindow's price list", () => {
  const window = (models: Config["models"], providerID = "anthropic", modelID = "claude-sonnet-4") =>
    resolveWindow({ providerID, modelID, hostLimits: null, config: config({ models }) })

  it("runs a named list with its cache lifetime, unless the override sets cache_ttl", () => {
    const named = window({ "anthropic/*": { price_list: "anthropic-1h" } })
    expect(named.priceList).toEqual({ list: "anthropic-1h", origin: "config", overridden: [], problem: null })
    expect(named.prices).toEqual({ uncached: 1, cachedRead: 0.1, cacheWrite: 2 })
    expect(named.cacheTtlMs).toBe(3_600_000)
    expect(window({ "anthropic/*": { price_list: "anthropic-1h", cache_ttl: "10m" } }).cacheTtlMs).toBe(600_000)
    // The family's list leaves the configured cache_ttl (5 minutes by default).
    expect(window({}).cacheTtlMs).toBe(300_000)
  })

  it("sets aside prices that make a cache write cheaper than a read, naming the override's key", () => {
    const set = window({ "anthropic/*": { prices: { cache_write: 0.05 } } })
    expect(set.prices).toEqual({ uncached: 1, cachedRead: 0.1, cacheWrite: 1.25 })
    expect(set.priceList.problem).toBe(
      "models.anthropic/*.prices: prices give a cache write (0.05) below a cached read (0.1); expected cache_write at " +
        "least cached_read: the anthropic-5m list's prices apply",
    )
  })
})

describe("the landing line", () => {
  it("is history_landing percent of the usable window, at least 5 points under the threshold", () => {
    expect(fixedWindow({ usableTokens: 100_000, config: defaultConfig() }).landingTokens).toBe(50_000)
    const low = fixedWindow({ usableTokens: 100_000, thresholdPercent: 40, config: defaultConfig() })
    expect(low.landingTokens).toBe(35_000)
    const set = fixedWindow({ usableTokens: 100_000, config: { ...defaultConfig(), history_landing: 30 } })
    expect(set.landingTokens).toBe(30_000)
  })

  it("may go lower under a write premium only with lasting_landing (off by default)", () => {
    expect(fixedWindow({ usableTokens: 100_000, config: defaultConfig() }).lastingLanding).toBe(false)
    expect(fixedWindow({ usableTokens: 100_000, config: { ...defaultConfig(), lasting_landing: true } }).lastingLanding).toBe(true)
  })
})

describe("the ceiling line", () => {
  it("is the drain's exit (10 points under the threshold), never under the landing line", () => {
    expect(fixedWindow({ usableTokens: 100_000, config: defaultConfig() }).ceilingTokens).toBe(55_000)
    expect(fixedWindow({ usableTokens: 100_000, thresholdPercent: 80, config: defaultConfig() }).ceilingTokens).toBe(70_000)
    // Threshold 20: landing 15%, drain exit 10%: the ceiling stays at the landing line.
    expect(fixedWindow({ usableTokens: 100_000, thresholdPercent: 20, config: defaultConfig() }).ceilingTokens).toBe(15_000)
  })
})

describe("fixedWindow", () => {
  it("uses the given usable window with the config's other settings", () => {
    expect(fixedWindow({ usableTokens: 200_000, config: config({ cache_ttl: "1h" }) })).toEqual({
      usableTokens: 200_000,
      contextTokens: 200_000,
      outputReserve: 0,
      thresholdPercent: 65,
      cacheTtlMs: 3_600_000,
      protectedTokens: 16_000,
      protectedClampedFrom: null,
      // The seed's 200k at 65%: a 19,500-token history budget.
      historyBudgetTokens: 19_500,
      landingTokens: 100_000,
      lastingLanding: false,
      ceilingTokens: 110_000,
      reminderBudgetTokens: 2_000,
      pinBudgetTokens: 6_500,
      source: "replay",
      // No provider: a replay is priced under OpenAI's list, as the Lab's estimates are.
      family: "openai",
      prices: { uncached: 1, cachedRead: 0.1, cacheWrite: 1 },
      priceList: { list: "openai", origin: "replay", overridden: [], problem: null },
      reasoning: reasoningRuleById("none"),
      reasoningSource: "table",
    })
  })

  it.each([
    ["anthropic-5m", { uncached: 1, cachedRead: 0.1, cacheWrite: 1.25 }, 300_000],
    ["anthropic-1h", { uncached: 1, cachedRead: 0.1, cacheWrite: 2 }, 3_600_000],
    ["openai", { uncached: 1, cachedRead: 0.1, cacheWrite: 1 }, 300_000],
  ] as const)("decides under a named list %s: its prices and its cache lifetime over the config's", (list, prices, cacheTtlMs) => {
    const window = fixedWindow({ usableTokens: 200_000, config: config({ cache_ttl: "15m" }), priceList: list })
    const plain = fixedWindow({ usableTokens: 200_000, config: config({ cache_ttl: "15m" }) })
    // Nothing else changes with the list.
    expect(window).toEqual({ ...plain, prices, cacheTtlMs, priceList: { list, origin: "config", overridden: [], problem: null } })
  })

  it("takes the prices the config gives the session's model, and only its prices", () => {
    const models = { "anthropic/*": { price_list: "anthropic-1h" as const, prices: { cached_read: 0.2 }, context: 9_000 } }
    const plain = fixedWindow({ usableTokens: 200_000, config: config() })
    const window = fixedWindow({ usableTokens: 200_000, config: config({ models }), model: { providerID: "anthropic", modelID: "claude-x" } })
    // The override's window is not the given one's: only the list (with its cache lifetime) and the prices count.
    expect(window).toEqual({
      ...plain,
      prices: { uncached: 1, cachedRead: 0.2, cacheWrite: 2 },
      cacheTtlMs: 3_600_000,
      priceList: { list: "anthropic-1h", origin: "config", overridden: ["cached_read"], problem: null },
    })
    // Another model, or none (a replay's replay/unknown), keeps the Lab's list; a named list wins over the config's.
    expect(fixedWindow({ usableTokens: 200_000, config: config({ models }), model: { providerID: "openai", modelID: "gpt-5" } })).toEqual(plain)
    expect(fixedWindow({ usableTokens: 200_000, config: config({ models }) })).toEqual(plain)
    const named = fixedWindow({ usableTokens: 200_000, config: config({ models }), model: { providerID: "anthropic", modelID: "c" }, priceList: "openai" })
    expect(named.priceList).toEqual({ list: "openai", origin: "config", overridden: [], problem: null })
    // A "*" pattern reaches a replay without a model.
    expect(fixedWindow({ usableTokens: 200_000, config: config({ models: { "*": { price_list: "anthropic-5m" } } }) }).priceList.list).toBe("anthropic-5m")
  })

  it("clamps a protected_tokens over a quarter of the usable window and says from what", () => {
    const config1M = config({ protected_tokens: 1_000_000 })
    expect(fixedWindow({ usableTokens: 32_000, config: config1M })).toMatchObject({
      protectedTokens: 8_000,
      protectedClampedFrom: 1_000_000,
    })
    expect(resolveWindow({ providerID: "p", modelID: "m", hostLimits: { context: 64_000, output: 4_000 }, config: config1M })).toMatchObject({
      usableTokens: 60_000,
      protectedTokens: 15_000,
      protectedClampedFrom: 1_000_000,
    })
    expect(fixedWindow({ usableTokens: 32_000, config: config({ protected_tokens: 8_000 }) })).toMatchObject({
      protectedTokens: 8_000,
      protectedClampedFrom: null,
    })
  })

  it("takes a threshold over the config's and keeps an explicit protected_tokens", () => {
    const window = fixedWindow({
      usableTokens: 12_000,
      thresholdPercent: 90,
      config: config({ protected_tokens: 3_000 }),
    })
    expect(window).toMatchObject({ thresholdPercent: 90, protectedTokens: 3_000 })
  })
})

describe("landingClamp", () => {
  it("says when history_landing is not 5 points under the threshold, and where passes land instead", () => {
    const over = config({ history_landing: 70 })
    const clamp = landingClamp(fixedWindow({ usableTokens: 100_000, config: over }), over)
    expect(clamp).toEqual({ configured: 70, used: 60, thresholdPercent: 65 })
    expect(landingClampMessage(clamp as NonNullable<typeof clamp>)).toBe(
      "history_landing 70% is not 5 points under the execute threshold (65%): execute passes land at 60% of the usable window",
    )
    const within = config({ history_landing: 60 })
    expect(landingClamp(fixedWindow({ usableTokens: 100_000, config: within }), within)).toBeNull()
  })
})
