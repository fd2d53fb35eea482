import { PROBE_KINDS, type ProbeKind } from "./probe-file.js"
import type { ProbeEvaluation } from "./evaluate-probes.js"
import type { IsoTokenPoint } from "./iso-tokens.js"
import type { PolicySummary } from "./summarize-probes.js"

/** The settings a Lab run records next to its figures, so a reader knows what was measured. */
export type LabSettings = { probeFile: string; encoding: string; thresholdPercent: number; windows: readonly number[] }

/**
 * The `lab --json` object (DESIGN.md "Contracts"): `summary` has one entry per policy and window (`full` first, its
 * window null: unreduced), `probes` one entry per valid probe × policy × window, `invalid` the probes that could not
 * be evaluated and why, and with `--iso-tokens` the equal-cost comparison `isoTokens`. Rates are fractions (0..1) or null when nothing was checked; numbers are rounded so two runs
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
    },
    summary: evaluation.summaries.map(summaryJson),
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

/** `value` rounded to `digits` decimals (null stays null). */
export function rounded(value: number | null, digits: number): number | null {
  if (value === null) return null
  const scale = 10 ** digits
  const result = Math.round(value * scale) / scale
  return Object.is(result, -0) ? 0 : result
}
