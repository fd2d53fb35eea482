import type { BenchPriceList } from "./bench-price-lists.js"
import type { EnginePrices } from "./engine-prices.js"

/** One side of a cost row: a run's whole-session prompt cost under the row's list, its prefix breaks and compactions. */
export type CostSide = { cost: number; prefixBreaks: number; compactions: number }

/**
 * One row of the cost table: a window, an agent style and a price list; the host alone priced under the list, and
 * the host with magic-context configured with that list and priced under it. `engine` is what the plugin's passes
 * billed under (read from its store), which shows the row's run decided under the row's list.
 */
export type CostRow = {
  window: string
  agent: string
  list: BenchPriceList
  hostAlone: CostSide
  withPlugin: CostSide
  engine: EnginePrices | null
}

/** How much less the run with the plugin costs, in percent of the host alone's cost (negative: it costs more). */
export function savingPercent(withPlugin: number, hostAlone: number): number | null {
  return hostAlone === 0 ? null : (1 - withPlugin / hostAlone) * 100
}

/** The rows as a Markdown table, one row per window × agent × list, the host named in the headers. */
export function costTable(options: { host: string; rows: readonly CostRow[] }): string[] {
  const { host } = options
  const header =
    `| window | agent | price list | ${host} alone | ${host} + magic-context | saving | ` +
    "prefix breaks, alone / with | compaction requests, alone / with | engine's prices (its passes) |"
  const lines = [header, "| --- | --- | --- | ---: | ---: | ---: | ---: | ---: | --- |"]
  for (const row of options.rows) {
    const saving = savingPercent(row.withPlugin.cost, row.hostAlone.cost)
    lines.push(
      `| ${row.window} | ${row.agent} | ${row.list} | ${thousands(row.hostAlone.cost)} | ${thousands(row.withPlugin.cost)} | ` +
        `${saving === null ? "–" : `${saving.toFixed(1)}%`} | ${row.hostAlone.prefixBreaks} / ${row.withPlugin.prefixBreaks} | ` +
        `${row.hostAlone.compactions} / ${row.withPlugin.compactions} | ${enginePrices(row.engine)} |`,
    )
  }
  return lines
}

function enginePrices(engine: EnginePrices | null): string {
  if (engine === null || engine.cacheWrite === null) return "–"
  return `write ${engine.cacheWrite}×, read ${engine.cachedRead ?? "?"}×`
}

function thousands(value: number): string {
  return String(Math.round(value)).replace(/\B(?=(\d{3})+(?!\d))/g, ",")
}
