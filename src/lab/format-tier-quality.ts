import { formatTable } from "../report/format-table.js"
import type { TierQuality } from "./tier-quality.js"

/** Experiment 1's table: one row per strategy and tier, most detailed first. */
export function formatTierQuality(rows: readonly TierQuality[]): string[] {
  return formatTable(
    ["strategy", "tier", "compartments", "generated", "mean tokens", "probes", "survived", "survival", "survival/1k tokens", "contradictions", "dominated by"],
    rows.map((row) => [
      row.strategy,
      row.tier,
      row.compartments,
      row.generated,
      Math.round(row.meanTokens),
      row.probes,
      row.survived,
      row.survival === null ? "-" : `${(row.survival * 100).toFixed(1)}%`,
      row.survivalPer1kTokens === null ? "-" : row.survivalPer1kTokens.toFixed(3),
      row.contradictions,
      row.dominatedBy ?? "-",
    ]),
  )
}
