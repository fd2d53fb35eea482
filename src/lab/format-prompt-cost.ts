import { basename } from "node:path"
import { formatTable } from "../report/format-table.js"
import type { RunCost } from "./prompt-cost.js"
import { meanCost, survivalPer1k, type PolicySummary, type RunRecord, type Survival } from "./summarize-probes.js"

/**
 * The cost table, one row per policy and window: calls, prompt tokens, the cached share (the prefix each call shares
 * with the previous one), the estimated cost (uncached + 0.1 × cached) in total and per call, and survival per
 * 1,000 cost tokens.
 */
export function formatPromptCost(summaries: readonly PolicySummary[]): string[] {
  return formatTable(
    ["policy", "window", "survived", ...COST_COLUMNS, "survival/1k cost"],
    summaries.map((summary) => [
      summary.policy,
      summary.policy === "full" ? "unreduced" : summary.window,
      survivalCell(summary.survival),
      ...costCells(summary.cost),
      rateCell(summary.survivalPer1kCostTokens),
    ]),
  )
}

/** The same per run: one transcript under one policy at one window. */
export function formatRunCosts(runs: readonly RunRecord[]): string[] {
  return formatTable(
    ["transcript", "policy", "window", "survived", ...COST_COLUMNS, "survival/1k cost"],
    runs.map((run) => [
      basename(run.traceName),
      run.policy,
      run.policy === "full" ? "unreduced" : run.window,
      survivalCell(run.survival),
      ...costCells(run.cost),
      rateCell(survivalPer1k(run.survival, meanCost(run.cost))),
    ]),
  )
}

const COST_COLUMNS = ["calls", "prompt tokens", "cached", "cost tokens", "cost/call"]

function costCells(cost: RunCost): (string | number)[] {
  const share = cost.promptTokens === 0 ? "-" : `${((cost.cachedTokens / cost.promptTokens) * 100).toFixed(1)}%`
  return [
    cost.calls,
    cost.promptTokens,
    share,
    Math.round(cost.costTokens),
    Math.round(meanCost(cost)),
  ]
}

function rateCell(rate: number | null): string {
  return rate === null ? "-" : rate.toFixed(4)
}

/** "survived/checked rate%", or "-" when nothing was checked. */
export function survivalCell(survival: Survival): string {
  if (survival.probes === 0) return "-"
  return `${survival.survived}/${survival.probes} ${Math.round((survival.rate ?? 0) * 1000) / 10}%`
}
