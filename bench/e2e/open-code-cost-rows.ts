import { BENCH_PRICE_LISTS } from "./bench-price-lists.js"
import type { ConfigurationResult } from "./configuration-result.js"
import type { CostRow, CostSide } from "./cost-table.js"
import type { ScenarioReport } from "./markdown-report.js"

const AGENTS = [
  { id: "magic-context", agent: "passive" },
  { id: "magic-context-cooperative", agent: "cooperative" },
] as const

/**
 * The cost table's rows for `bench:e2e`: per scenario, agent style and price list, OpenCode alone against the
 * magic-context run configured with that list; a combination that did not run (or OpenCode alone missing) has no row.
 */
export function openCodeCostRows(scenarios: readonly ScenarioReport[]): CostRow[] {
  return scenarios.flatMap(({ scenario, results }) => {
    const alone = results.find((result) => result.id === "opencode")
    if (!alone?.metrics) return []
    return AGENTS.flatMap(({ id, agent }) =>
      BENCH_PRICE_LISTS.flatMap((list): CostRow[] => {
        const run = results.find((result) => result.id === id && result.priceList === list)
        if (!run?.metrics) return []
        return [{ window: scenario.id, agent, list, hostAlone: side(alone, list), withPlugin: side(run, list), engine: run.enginePrices }]
      }),
    )
  })
}

function side(result: ConfigurationResult, list: (typeof BENCH_PRICE_LISTS)[number]): CostSide {
  return {
    cost: result.metrics?.sessionCost[list] ?? 0,
    prefixBreaks: result.metrics?.prefixBreaks ?? 0,
    compactions: result.requestCounts.compaction,
  }
}
