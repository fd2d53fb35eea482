import { afterEach, describe, expect, it, vi } from "vitest"
import { benchPriceListsOf, describeBenchList, LASTING_LANDING_VARIABLE, priceListConfig } from "../../../bench/e2e/bench-price-lists.js"
import { modelOverride } from "../../../src/pressure/model-window.js"
import { ConfigSchema } from "../../../src/config/schema.js"

describe("benchPriceListsOf", () => {
  it("gives every list in table order when unset or empty", () => {
    expect(benchPriceListsOf(undefined)).toEqual(["anthropic-5m", "anthropic-1h", "openai"])
    expect(benchPriceListsOf(" ")).toEqual(["anthropic-5m", "anthropic-1h", "openai"])
  })

  it("keeps the named lists in table order and refuses an unknown name", () => {
    expect(benchPriceListsOf("openai, anthropic-5m")).toEqual(["anthropic-5m", "openai"])
    expect(() => benchPriceListsOf("openai,google")).toThrow(/unknown list google/)
  })
})

describe("priceListConfig", () => {
  it("names the list for the mock model on top of the other settings, in a config the plugin accepts", () => {
    const text = priceListConfig("anthropic-1h", { historian: { strategy: "canonical" } })
    const config = ConfigSchema.parse(JSON.parse(text))
    expect(config.historian.strategy).toBe("canonical")
    expect(modelOverride(config, "mock", "mock-model")?.price_list).toBe("anthropic-1h")
    expect(modelOverride(config, "anthropic", "claude-sonnet")).toBeNull()
  })

  afterEach(() => {
    vi.unstubAllEnvs()
  })

  it("turns lasting_landing on only when BENCH_LASTING_LANDING is 1", () => {
    const lasting = (): boolean => ConfigSchema.parse(JSON.parse(priceListConfig("anthropic-5m"))).lasting_landing
    vi.stubEnv(LASTING_LANDING_VARIABLE, "")
    expect(lasting()).toBe(false)
    vi.stubEnv(LASTING_LANDING_VARIABLE, "yes")
    expect(lasting()).toBe(false)
    vi.stubEnv(LASTING_LANDING_VARIABLE, "1")
    expect(lasting()).toBe(true)
  })
})

describe("describeBenchList", () => {
  it("states the list's write and read prices", () => {
    expect(describeBenchList("anthropic-1h")).toBe("write 2×, read 0.1×")
    expect(describeBenchList("openai")).toBe("write 1×, read 0.1×")
  })
})
