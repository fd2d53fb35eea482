import { formatTable } from "../report/format-table.js"
import { PROBE_KINDS } from "./probe-file.js"
import type { PolicySummary, Survival } from "./summarize-probes.js"

/**
 * The per-policy table of a probe evaluation, one row per policy and window (`full` shows "unreduced"): survival of
 * the non-incidental probes, survived/checked per kind, mean and maximum prompt tokens, floor violations, prefix
 * changes per 100 calls and tier switches.
 */
export function formatPolicySummaries(summaries: readonly PolicySummary[]): string[] {
  return formatTable(
    [...LEADING_COLUMNS, ...PROBE_KINDS, ...COST_COLUMNS],
    summaries.map((summary) => [
      summary.policy,
      summary.policy === "full" ? "unreduced" : summary.window,
      survivalCell(summary.survival),
      ...PROBE_KINDS.map((kind) => countCell(summary.byKind[kind])),
      Math.round(summary.meanPromptTokens),
      summary.maxPromptTokens,
      summary.floorViolations,
      Math.round(summary.prefixChangesPer100Turns * 100) / 100,
      summary.tierSwitches,
    ]),
  )
}

const LEADING_COLUMNS = ["policy", "window", "survived"]
const COST_COLUMNS = ["mean tokens", "max tokens", "floor violations", "prefix/100", "tier switches"]

function survivalCell(survival: Survival): string {
  const rate = survival.rate === null ? "-" : `${Math.round(survival.rate * 1000) / 10}%`
  return `${countCell(survival)} ${rate}`
}

function countCell(survival: Survival): string {
  return survival.probes === 0 ? "-" : `${survival.survived}/${survival.probes}`
}

/**
 * The second table: survival per 1,000 mean prompt tokens, over- and under-fidelity against the oracle at the same
 * window, prompt tokens saved against `full`, and what generating the representations cost (compartments,
 * representation tokens, model tokens; the canonical record spends none).
 */
export function formatReferenceComparison(summaries: readonly PolicySummary[]): string[] {
  return formatTable(
    ["policy", "window", "survival/1k tokens", "tokens above oracle", "lost vs oracle", "saved vs full", "compartments", "tier tokens", "model tokens"],
    summaries.map((summary) => [
      summary.policy,
      summary.policy === "full" ? "unreduced" : summary.window,
      summary.survivalPer1kTokens === null ? "-" : summary.survivalPer1kTokens.toFixed(4),
      summary.overFidelityTokens === null ? "-" : Math.round(summary.overFidelityTokens),
      summary.underFidelityProbes ?? "-",
      summary.promptTokensSaved ?? "-",
      summary.generation.compartments,
      summary.generation.representationTokens,
      summary.generation.modelTokens,
    ]),
  )
}
