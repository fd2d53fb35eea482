import { PROBE_KINDS, type ProbeKind } from "./probe-file.js"
import type { ProbeEvaluation } from "./evaluate-probes.js"
import type { IsoTokenPoint } from "./iso-tokens.js"
import type { FoldReport } from "./leave-one-out.js"
import type { RuleAblation } from "./rule-ablation.js"
import { CACHED_TOKEN_PRICE, type RunCost } from "./prompt-cost.js"
import { meanCost, survivalPer1k, type PolicySummary, type RunRecord } from "./summarize-probes.js"

/** How the cost tables read, in one line (the text output and the report). */
export const PROMPT_COST_NOTE =
  `each call's cached tokens are its prefix shared with the previous call's prompt; cost = uncached + ${CACHED_TOKEN_PRICE} × cached`

/** The optional experiments of a Lab run: `--iso-tokens`, `--without`, `--folds` (null or absent when not asked). */
export type LabExperiments = {
  isoTokens?: readonly IsoTokenPoint[] | null
  ruleAblation?: RuleAblation | null
  folds?: FoldReport | null
}

/** The settings a Lab run records next to its figures, so a reader knows what was measured. */
export type LabSettings = { probeFile: string; encoding: string; thresholdPercent: number; windows: readonly number[] }

/**
 * The `lab --json` object (DESIGN.md "Contracts"): `summary` has one entry per policy and window (`full` first, its
 * window null: unreduced), `runs` one per transcript × policy × window (survival and prompt cost), `probes` one entry
 * per valid probe × policy × window, `invalid` the probes that could not be evaluated and why, and with
 * `--iso-tokens` the equal-cost comparison `isoTokens`, with `--without` the rule ablation `without`, with `--folds`
 * the leave-one-transcript-out `folds`. Rates are fractions (0..1) or null when nothing was checked; numbers are rounded so two runs
 * print the same bytes. Field order is fixed.
 */
export function labJson(options: { evaluation: ProbeEvaluation; settings: LabSettings } & LabExperiments): Record<string, unknown> {
  const { evaluation, settings } = options
  const isoTokens = options.isoTokens ?? null
  return {
    settings: {
      probeFile: settings.probeFile,
      encoding: settings.encoding,
      thresholdPercent: settings.thresholdPercent,
      windows: settings.windows,
      cachedTokenPrice: CACHED_TOKEN_PRICE,
    },
    summary: evaluation.summaries.map(summaryJson),
    runs: evaluation.runs.map(runJson),
    probes: evaluation.verdicts.map((verdict) => ({
      id: verdict.probeId,
      kind: verdict.kind,
      policy: verdict.policy,
      window: verdict.policy === "full" ? null : verdict.window,
      needTurn: verdict.needTurn,
      survived: verdict.survived,
    })),
    invalid: evaluation.validity.filter((entry) => !entry.valid).map((entry) => ({ id: entry.probeId, problems: entry.problems })),
    ...(isoTokens === null
      ? {}
      : {
          isoTokens: isoTokens.map((point) => ({
            ...point,
            meanPromptTokens: rounded(point.meanPromptTokens, 1),
            defaultMeanPromptTokens: rounded(point.defaultMeanPromptTokens, 1),
          })),
        }),
    ...(options.ruleAblation ? { without: ruleAblationJson(options.ruleAblation) } : {}),
    ...(options.folds ? { folds: foldsJson(options.folds) } : {}),
  }
}

function ruleAblationJson(ablation: RuleAblation): Record<string, unknown> {
  return {
    rules: ablation.rules,
    rows: ablation.rows.map((row) => ({
      policy: row.policy,
      window: row.window,
      probesChecked: row.withRules.probes,
      survivalWithRules: rounded(row.withRules.rate, 4),
      survivalWithoutRules: rounded(row.withoutRules.rate, 4),
      survivedWithRules: row.withRules.survived,
      survivedWithoutRules: row.withoutRules.survived,
      difference: row.difference,
      saved: row.saved,
      lostWithRules: row.lostWithRules,
      meanPromptTokensWithRules: rounded(row.meanPromptTokens.withRules, 1),
      meanPromptTokensWithoutRules: rounded(row.meanPromptTokens.withoutRules, 1),
      meanCostTokensWithRules: rounded(row.meanCostTokens.withRules, 1),
      meanCostTokensWithoutRules: rounded(row.meanCostTokens.withoutRules, 1),
    })),
  }
}

function foldsJson(report: FoldReport): Record<string, unknown> {
  const survival = (row: FoldReport["pooled"][number]): Record<string, unknown> => ({
    policy: row.policy,
    window: row.window,
    probesChecked: row.allRules.probes,
    survivalAllRules: rounded(row.allRules.rate, 4),
    survivalFold: rounded(row.fold.rate, 4),
    survivedAllRules: row.allRules.survived,
    survivedFold: row.fold.survived,
    difference: row.allRules.survived - row.fold.survived,
  })
  return {
    folds: report.folds.map((row) => ({
      trace: row.trace,
      rulesOffCount: row.rulesOff.length,
      rulesOff: row.rulesOff,
      ...survival(row),
    })),
    pooled: report.pooled.map(survival),
  }
}

function summaryJson(summary: PolicySummary): Record<string, unknown> {
  return {
    policy: summary.policy,
    window: summary.policy === "full" ? null : summary.window,
    survival: rounded(summary.survival.rate, 4),
    probesChecked: summary.survival.probes,
    probesSurvived: summary.survival.survived,
    survivalByKind: Object.fromEntries(
      PROBE_KINDS.map((kind: ProbeKind) => [kind, rounded(summary.byKind[kind].rate, 4)]),
    ),
    meanPromptTokens: rounded(summary.meanPromptTokens, 1),
    maxPromptTokens: summary.maxPromptTokens,
    survivalPer1kTokens: rounded(summary.survivalPer1kTokens, 4),
    ...costJson(summary.cost),
    survivalPer1kCostTokens: rounded(summary.survivalPer1kCostTokens, 4),
    floorViolations: summary.floorViolations,
    prefixChanges: summary.prefixChanges,
    prefixChangesPer100: rounded(summary.prefixChangesPer100Turns, 2),
    tierSwitches: summary.tierSwitches,
    executePasses: summary.executePasses,
    recalledLines: summary.recalledLines,
    meanRecalledTokens: rounded(summary.meanRecalledTokens, 1),
    turns: summary.turns,
    overFidelityTokens: rounded(summary.overFidelityTokens, 1),
    underFidelityProbes: summary.underFidelityProbes,
    promptTokensSaved: summary.promptTokensSaved,
    generation: summary.generation,
  }
}

function runJson(run: RunRecord): Record<string, unknown> {
  return {
    trace: run.traceName,
    policy: run.policy,
    window: run.policy === "full" ? null : run.window,
    survival: rounded(run.survival.rate, 4),
    probesChecked: run.survival.probes,
    probesSurvived: run.survival.survived,
    turns: run.metrics.turns,
    ...costJson(run.cost),
    survivalPer1kCostTokens: rounded(survivalPer1k(run.survival, meanCost(run.cost)), 4),
  }
}

/** The prompt cost fields of a summary or a run (token units; `cachedShare` a fraction of the prompt tokens). */
function costJson(cost: RunCost): Record<string, unknown> {
  return {
    promptTokens: cost.promptTokens,
    cachedTokens: cost.cachedTokens,
    uncachedTokens: cost.uncachedTokens,
    cachedShare: cost.promptTokens === 0 ? null : rounded(cost.cachedTokens / cost.promptTokens, 4),
    costTokens: rounded(cost.costTokens, 1),
    meanCostTokens: rounded(meanCost(cost), 1),
  }
}

/** `value` rounded to `digits` decimals (null stays null). */
export function rounded(value: number | null, digits: number): number | null {
  if (value === null) return null
  const scale = 10 ** digits
  const result = Math.round(value * scale) / scale
  return Object.is(result, -0) ? 0 : result
}
