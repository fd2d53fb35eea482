import { PRICE_LISTS, type PriceListName } from "../session/price-lists.js"
import type { CostRun } from "./cost-replay.js"
import { addRunCosts } from "./prompt-cost.js"

/**
 * How the host alone is replayed at a window: `unreduced` (every call is the whole transcript, no tags, when its
 * largest prompt fits the window) or `truncation` (it does not fit: the overflow handled as the Lab's truncation
 * policy does, still without tags).
 */
export type HostAloneMode = "unreduced" | "truncation"

/** The host alone's mode at `window`, from the largest prompt of its unreduced replay. */
export function hostAloneMode(unreducedMaxPromptTokens: number, window: number): HostAloneMode {
  return unreducedMaxPromptTokens <= window ? "unreduced" : "truncation"
}

/** One transcript at one window with the engine under one price list: the host alone and the plugin's default policy. */
export type PriceListRun = {
  fixture: string
  window: number
  list: PriceListName
  hostAloneAs: HostAloneMode
  hostAlone: CostRun
  plugin: CostRun
}

/** The comparison of one run, or of several taken together, under the run's price list, in uncached-token units. */
export type PriceListCostRow = {
  /** The transcript, or null for a total over all of them. */
  fixture: string | null
  window: number
  list: PriceListName
  /** How the host alone was replayed; `mixed` in a total whose transcripts differ. */
  hostAloneAs: HostAloneMode | "mixed"
  calls: number
  hostAloneCost: number
  pluginCost: number
  /** 1 − plugin / host alone: positive when the plugin costs less; null when the host alone costs nothing. */
  saving: number | null
  /** The plugin's calls whose prompt does not keep the previous one as a prefix (each rewrites the cache from there). */
  breaks: number
  hostAloneBreaks: number
  executePasses: number
  /** The prompt tokens of both (sums over the calls) and, of the plugin's, the tokens spent on `§N§` tags. */
  hostAlonePromptTokens: number
  pluginPromptTokens: number
  pluginTagTokens: number
  /** What the plugin's guidance and tool definitions add to each of its requests (in its prompt tokens too). */
  pluginRequestTokens: number
}

/** One row per run, priced under its list. */
export function priceListCostRows(runs: readonly PriceListRun[]): PriceListCostRow[] {
  return runs.map((run) => costRow({ fixture: run.fixture, window: run.window, list: run.list, runs: [run] }))
}

/** One row per window × list over every transcript, windows and lists in the order given. */
export function priceListTotals(options: {
  runs: readonly PriceListRun[]
  windows: readonly number[]
  lists: readonly PriceListName[]
}): PriceListCostRow[] {
  return options.windows.flatMap((window) =>
    options.lists.map((list) =>
      costRow({ fixture: null, window, list, runs: options.runs.filter((run) => run.window === window && run.list === list) }),
    ),
  )
}

/** The rows in which the plugin costs more than the host alone. */
export function pluginCostsMore(rows: readonly PriceListCostRow[]): PriceListCostRow[] {
  return rows.filter((row) => row.pluginCost > row.hostAloneCost)
}

function costRow(options: { fixture: string | null; window: number; list: PriceListName; runs: readonly PriceListRun[] }): PriceListCostRow {
  const { runs } = options
  const prices = PRICE_LISTS[options.list].prices
  // Priced from the integer sums of cached and uncached tokens, so the order of the runs does not change a bit.
  const hostAloneCost = addRunCosts(runs.map((run) => run.hostAlone.cost), prices).costTokens
  const pluginCost = addRunCosts(runs.map((run) => run.plugin.cost), prices).costTokens
  const modes = new Set(runs.map((run) => run.hostAloneAs))
  return {
    fixture: options.fixture,
    window: options.window,
    list: options.list,
    hostAloneAs: modes.size === 1 ? (runs[0]?.hostAloneAs ?? "unreduced") : modes.size === 0 ? "unreduced" : "mixed",
    calls: runs.reduce((sum, run) => sum + run.plugin.cost.calls, 0),
    hostAloneCost,
    pluginCost,
    saving: hostAloneCost > 0 ? 1 - pluginCost / hostAloneCost : null,
    breaks: runs.reduce((sum, run) => sum + run.plugin.metrics.prefixChanges, 0),
    hostAloneBreaks: runs.reduce((sum, run) => sum + run.hostAlone.metrics.prefixChanges, 0),
    executePasses: runs.reduce((sum, run) => sum + run.plugin.metrics.executePasses, 0),
    hostAlonePromptTokens: runs.reduce((sum, run) => sum + run.hostAlone.cost.promptTokens, 0),
    pluginPromptTokens: runs.reduce((sum, run) => sum + run.plugin.cost.promptTokens, 0),
    pluginTagTokens: runs.reduce((sum, run) => sum + run.plugin.tagTokens, 0),
    pluginRequestTokens: Math.max(0, ...runs.map((run) => run.plugin.requestTokens)),
  }
}
