import { PROBE_KINDS, type ProbeKind } from "./probe-file.js"
import type { ProbeEvaluation } from "./evaluate-probes.js"
import type { IsoTokenPoint } from "./iso-tokens.js"
import { CACHED_TOKEN_PRICE, type RunCost } from "./prompt-cost.js"
import { meanCost, survivalPer1k, type PolicySummary, type RunRecord } from "./summarize-probes.js"

/** How the cost tables read, in one line (the text output and the report). */
export const PROMPT_COST_NOTE =
  `each call's cached tokens are its prefix shared with the previous call's prompt; cost = uncached + ${CACHED_TOKEN_PRICE} × cached`

/** The settings a Lab run records next to its figures, so a reader knows what was measured. */
export type LabSettings = { probeFile: string; encoding: string; thresholdPercent: number; windows: readonly number[] }

/**
 * The `lab --json` object (DESIGN.md "Contracts"): `summary` has one entry per policy and window (`full` first, its
 * window null: unreduced), `runs` one per transcript × policy × window (survival and prompt cost), `probes` one entry
 * per valid probe × policy × window, `invalid` the probes that could not be evaluated and why, and with
 * `--iso-tokens` the equal-cost comparison `isoTokens`. Rates are fractions (0..1) or null when nothing was checked; numbers are rounded so two runs
 * print the same bytes. Field order is fixed.
 */
export function labJson(
  evaluation: ProbeEvaluation,
  settings: LabSettings,
  isoTokens: readonly IsoTokenPoint[] | null = null,
): Record<string, unknown> {
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
    turns: summary.turns,
    overFidelityTokens: rounded(summary.overFidelityTokens, 1),
    underFidelityProbes: summary.underFidelityProbes,
    promptTokensSaved: summary.promptTokensSaved,
    generation: summary.generation,
  }
}

function runJson(run: RunRecord): Record<string, unknown> {
  return {
    trace: run.trace,
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
