import { formatTable } from "../report/format-table.js"
import { rounded } from "./lab-json.js"
import type { PriceListCostRow } from "./price-list-costs.js"

/**
 * The cost comparison as a table: per transcript (or in total), window and price list, the host alone's estimated
 * prompt cost, the plugin's, the saving, the plugin's cache breaks and execute passes. A row where the plugin costs
 * more is marked `MORE`. `tokens` is the plugin's prompt tokens against the host alone's (all calls), `tags` the
 * share of the plugin's prompt tokens spent on `§N§` tags.
 */
export function formatPriceListCosts(rows: readonly PriceListCostRow[]): string[] {
  return formatTable(
    [
      ...["transcript", "window", "price list", "host alone as", "calls", "host alone", "plugin", "saving"],
      ...["breaks", "execute passes", "tokens", "tags", ""],
    ],
    rows.map((row) => [
      row.fixture ?? "total",
      row.window,
      row.list,
      row.hostAloneAs,
      row.calls,
      Math.round(row.hostAloneCost),
      Math.round(row.pluginCost),
      savingCell(row.saving),
      row.breaks,
      row.executePasses,
      row.hostAlonePromptTokens === 0 ? "-" : signedPercent(row.pluginPromptTokens / row.hostAlonePromptTokens - 1),
      row.pluginPromptTokens === 0 ? "-" : `${((row.pluginTagTokens / row.pluginPromptTokens) * 100).toFixed(1)}%`,
      row.pluginCost > row.hostAloneCost ? "MORE" : "",
    ]),
  )
}

/** The saving in percent with one decimal, signed when the plugin costs more ("-0.4%"), or "-". */
export function savingCell(saving: number | null): string {
  if (saving === null) return "-"
  const percent = (rounded(saving * 100, 1) ?? 0).toFixed(1)
  return `${percent}%`
}

function signedPercent(share: number): string {
  const percent = (rounded(share * 100, 1) ?? 0).toFixed(1)
  return share > 0 && percent !== "0.0" ? `+${percent}%` : `${percent}%`
}

/** A row's JSON fields, the costs rounded to a tenth of a token unit and the saving to 4 digits. */
export function priceListCostJson(row: PriceListCostRow): Record<string, unknown> {
  return {
    ...row,
    hostAloneCost: rounded(row.hostAloneCost, 1),
    pluginCost: rounded(row.pluginCost, 1),
    saving: rounded(row.saving, 4),
    pluginCostsMore: row.pluginCost > row.hostAloneCost,
  }
}
