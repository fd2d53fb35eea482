import { basename } from "node:path"
import { formatTable } from "../report/format-table.js"
import type { FoldReport, PooledFoldRow } from "./leave-one-out.js"
import type { RuleAblation } from "./rule-ablation.js"
import { survivalCell } from "./format-prompt-cost.js"

/**
 * The `--without` table, one row per policy and window: survival with all rules and without the named ones, the
 * difference in probes, mean prompt tokens and cost per call both ways, and the probes the rules saved (survived
 * only with them) or cost (survived only without them).
 */
export function formatRuleAblation(ablation: RuleAblation): string[] {
  return formatTable(
    ABLATION_COLUMNS,
    ablation.rows.map((row) => [
      row.policy,
      row.window,
      survivalCell(row.withRules),
      survivalCell(row.withoutRules),
      signed(row.difference),
      Math.round(row.meanPromptTokens.withRules),
      Math.round(row.meanPromptTokens.withoutRules),
      Math.round(row.meanCostTokens.withRules),
      Math.round(row.meanCostTokens.withoutRules),
      idsCell(row.saved),
      idsCell(row.lostWithRules),
    ]),
  )
}

const ABLATION_COLUMNS = [
  "policy",
  "window",
  "with rules",
  "without",
  "with − without",
  "tokens with",
  "tokens without",
  "cost/call with",
  "cost/call without",
  "saved",
  "lost with rules",
]

/**
 * The `--folds` table, one row per transcript × policy × window and then the pooled rows: how many rules were tuned
 * on the transcript (switched off in its fold), its survival with all rules and in its fold and the difference (what
 * the rules gained on the transcript they were tuned on); then which rules.
 */
export function formatFolds(report: FoldReport): string[] {
  const cells = (row: PooledFoldRow): (string | number)[] => [
    row.policy,
    row.window,
    survivalCell(row.allRules),
    survivalCell(row.fold),
    signed(row.allRules.survived - row.fold.survived),
  ]
  const rows = [
    ...report.folds.map((row) => [basename(row.trace), row.rulesOff.length, ...cells(row)]),
    ...report.pooled.map((row) => ["pooled", "-", ...cells(row)]),
  ]
  const switchedOff = [...new Map(report.folds.map((row) => [row.trace, row.rulesOff])).entries()].map(
    ([trace, rules]) => `switched off for ${basename(trace)}: ${rules.length === 0 ? "none" : `${rules.length} (${rules.join(", ")})`}`,
  )
  return [...formatTable(["transcript", "rules off", "policy", "window", "all rules", "fold", "all − fold"], rows), "", ...switchedOff]
}

function signed(value: number): string {
  return value > 0 ? `+${value}` : String(value)
}

function idsCell(ids: readonly string[]): string {
  return ids.length === 0 ? "-" : ids.join(", ")
}
