import { describe, expect, it } from "vitest"
import type { CostRun } from "../../src/lab/cost-replay.js"
import { formatPriceListCosts, priceListCostJson, savingCell } from "../../src/lab/format-price-list-costs.js"
import {
  hostAloneMode,
  pluginCostsMore,
  priceListCostRows,
  priceListTotals,
  type PriceListRun,
} from "../../src/lab/price-list-costs.js"
import { runCost, callCost } from "../../src/lab/prompt-cost.js"
import { runMetrics } from "../../src/lab/run-metrics.js"
import type { PriceListName } from "../../src/session/price-lists.js"

/** A run of calls given as [prompt tokens, uncached tokens, prefix changed, pass]. */
function costRun(calls: readonly (readonly [number, number, boolean?, ("execute" | "replay")?])[], tagTokens = 0): CostRun {
  const costs = calls.map(([promptTokens, uncachedTokens]) => callCost({ promptTokens, uncachedTokens }))
  const measures = calls.map(([total, , prefixChanged, pass]) => ({
    pass: pass ?? ("replay" as const),
    tokens: { total, fixed: 0, history: 0, conversation: total, protected: 0, tool: 0, reclaimable: 0, tags: 0 },
    prefixChanged: prefixChanged ?? false,
    history: null,
  }))
  return { cost: runCost(costs), metrics: runMetrics(measures), tagTokens, requestTokens: 0 }
}

/** The host alone appends: 1,000, then 1,100, then 1,200 tokens, each call's previous prompt cached. */
const HOST_ALONE = costRun([
  [1000, 1000],
  [1100, 100],
  [1200, 100],
])
/** The plugin folds at the third call: 600 tokens, 400 of them rewritten from the break on. */
const FOLDED = costRun(
  [
    [1000, 1000],
    [1100, 100],
    [600, 400, true, "execute"],
  ],
  27,
)

const run = (list: PriceListName, plugin: CostRun, fixture = "a.jsonl", window = 200_000): PriceListRun => ({
  fixture,
  window,
  list,
  hostAloneAs: "unreduced",
  hostAlone: HOST_ALONE,
  plugin,
})

describe("hostAloneMode", () => {
  it.each([
    [150_000, 200_000, "unreduced"],
    [200_000, 200_000, "unreduced"],
    [200_001, 200_000, "truncation"],
  ] as const)("a largest prompt of %i in a %i window is %s", (max, window, mode) => {
    expect(hostAloneMode(max, window)).toBe(mode)
  })
})

describe("priceListCostRows", () => {
  it("prices the uncached tokens at each list's write price and the cached at its read price", () => {
    const rows = priceListCostRows([run("openai", FOLDED), run("anthropic-5m", FOLDED), run("anthropic-1h", FOLDED)])
    // Host alone: 1,200 uncached, 2,100 cached. Plugin: 1,500 uncached, 1,200 cached.
    expect(rows.map((row) => [row.list, row.hostAloneCost, row.pluginCost])).toEqual([
      ["openai", 1200 + 210, 1500 + 120],
      ["anthropic-5m", 1200 * 1.25 + 210, 1500 * 1.25 + 120],
      ["anthropic-1h", 1200 * 2 + 210, 1500 * 2 + 120],
    ])
    expect(
      rows.map((row) => [row.breaks, row.hostAloneBreaks, row.executePasses, row.calls, row.hostAlonePromptTokens, row.pluginPromptTokens, row.pluginTagTokens]),
    ).toEqual([
      [1, 0, 1, 3, 3300, 2700, 27],
      [1, 0, 1, 3, 3300, 2700, 27],
      [1, 0, 1, 3, 3300, 2700, 27],
    ])
    expect(rows[0]?.saving).toBeCloseTo(1 - 1620 / 1410, 10)
  })

  it("saves nothing when the plugin sends what the host alone sends", () => {
    const [row] = priceListCostRows([run("anthropic-5m", HOST_ALONE)])
    expect(row?.saving).toBe(0)
    expect(pluginCostsMore(row ? [row] : [])).toEqual([])
  })
})

describe("priceListTotals", () => {
  it("adds the transcripts of each window and list, in the order given", () => {
    const runs = [
      run("openai", FOLDED, "a.jsonl"),
      run("openai", HOST_ALONE, "b.jsonl"),
      run("openai", HOST_ALONE, "a.jsonl", 1_000_000),
      { ...run("openai", HOST_ALONE, "b.jsonl", 1_000_000), hostAloneAs: "truncation" as const },
    ]
    const totals = priceListTotals({ runs, windows: [200_000, 1_000_000], lists: ["openai"] })
    expect(totals.map((row) => [row.fixture, row.window, row.hostAloneAs, row.calls, row.hostAloneCost, row.pluginCost])).toEqual([
      [null, 200_000, "unreduced", 6, 2820, 1620 + 1410],
      [null, 1_000_000, "mixed", 6, 2820, 2820],
    ])
  })
})

describe("pluginCostsMore", () => {
  it("finds the rows where the plugin costs more than the host alone, and the table marks them", () => {
    const rows = priceListCostRows([run("openai", FOLDED, "a.jsonl"), run("openai", HOST_ALONE, "b.jsonl")])
    expect(pluginCostsMore(rows).map((row) => row.fixture)).toEqual(["a.jsonl"])
    const table = formatPriceListCosts(rows)
    expect(table.filter((line) => line.endsWith("MORE"))).toHaveLength(1)
    expect(table[2]).toContain("-14.9%")
    // 2,700 prompt tokens against 3,300: -18.2%; 27 of them tags: 1.0%.
    expect(table[2]).toMatch(/-14\.9% .* -18\.2% +1\.0% +MORE$/)
    expect(priceListCostJson(rows[0] as (typeof rows)[number])).toMatchObject({ pluginCostsMore: true, saving: -0.1489 })
  })
})

describe("savingCell", () => {
  it.each([
    [null, "-"],
    [0, "0.0%"],
    [0.12345, "12.3%"],
    [-0.004, "-0.4%"],
  ] as const)("%s is %s", (saving, cell) => {
    expect(savingCell(saving)).toBe(cell)
  })
})
