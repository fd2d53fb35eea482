import { describe, expect, it } from "vitest"
import { unavailableResult, type ConfigurationResult } from "../../../bench/e2e/configuration-result.js"
import type { BenchConfiguration } from "../../../bench/e2e/configurations.js"
import { openCodeCostRows } from "../../../bench/e2e/open-code-cost-rows.js"
import { measureRequests } from "../../../bench/e2e/request-metrics.js"
import type { ScenarioFacts } from "../../../bench/e2e/scenarios.js"

const configuration = (id: BenchConfiguration["id"], priceList: BenchConfiguration["priceList"]): BenchConfiguration => ({
  id,
  title: `${id} ${priceList ?? ""}`,
  priceList,
  cooperative: id === "magic-context-cooperative",
  reduceStyle: "batched",
  pluginEntry: null,
  pluginVersion: null,
  pluginTool: null,
  compaction: { auto: true, prune: false },
  files: {},
  settings: "",
  unavailable: null,
})

/** A result whose one main request has `tokens` prompt tokens, nothing cached. */
const ran = (config: BenchConfiguration, tokens: number, compactions = 0): ConfigurationResult => {
  const metrics = measureRequests({
    requests: [{ n: 1, turn: 0, elements: ["x"], elementTokens: [tokens] }],
    sideRequests: [],
    usableWindow: 100,
    contextWindow: 100,
    countText: (text) => text.length,
  })
  const base = unavailableResult(config, "")
  return { ...base, metrics, requestCounts: { ...base.requestCounts, compaction: compactions }, enginePrices: config.priceList ? { cacheWrite: 2, cachedRead: 0.1 } : null }
}

const scenario = { id: "32k", title: "32k" } as ScenarioFacts

describe("openCodeCostRows", () => {
  it("pairs OpenCode alone with each magic-context run under its own list, passive then cooperative", () => {
    const rows = openCodeCostRows([
      {
        scenario,
        results: [
          ran(configuration("opencode", null), 100, 4),
          ran(configuration("magic-context", "anthropic-1h"), 70),
          ran(configuration("magic-context", "openai"), 60),
          ran(configuration("magic-context-cooperative", "openai"), 50),
          unavailableResult(configuration("magic-context-cooperative", "anthropic-1h"), "not run"),
        ],
      },
    ])
    expect(rows.map((row) => [row.window, row.agent, row.list, row.hostAlone.cost, row.withPlugin.cost])).toEqual([
      ["32k", "passive", "anthropic-1h", 200, 140],
      ["32k", "passive", "openai", 100, 60],
      ["32k", "cooperative", "openai", 100, 50],
    ])
    expect(rows[0]?.hostAlone.compactions).toBe(4)
    expect(rows[0]?.engine).toEqual({ cacheWrite: 2, cachedRead: 0.1 })
  })

  it("has no rows without OpenCode alone to compare with", () => {
    expect(openCodeCostRows([{ scenario, results: [ran(configuration("magic-context", "openai"), 60)] }])).toEqual([])
  })
})
