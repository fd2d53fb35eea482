import { PROBE_KINDS, type ProbeKind } from "./probe-file.js"
import type { LabPolicy, ProbeVerdict } from "./probe-verdict.js"
import { addRunMetrics, type RunMetrics } from "./run-metrics.js"

/** The metrics of one replay: one transcript under one policy at one window. */
export type RunRecord = { trace: string; policy: LabPolicy; window: number; metrics: RunMetrics }

/** How many checked probes survived; `rate` is null when none was checked. */
export type Survival = { probes: number; survived: number; rate: number | null }

/** One policy at one window over every transcript: probe survival and what the prompts cost. */
export type PolicySummary = {
  policy: LabPolicy
  window: number
  /** Over the checked probes that are not incidental (incidental facts may be dropped). */
  survival: Survival
  byKind: Record<ProbeKind, Survival>
  turns: number
  meanPromptTokens: number
  maxPromptTokens: number
  /** Sum over all model calls of compartments below their floor. */
  floorViolations: number
  prefixChanges: number
  prefixChangesPer100Turns: number
  tierSwitches: number
  executePasses: number
}

/**
 * Summarizes verdicts and runs per (policy, window), in the order the pairs first occur in `runs`. Only checked
 * verdicts count (`survived` not null).
 */
export function summarizeProbes(options: {
  verdicts: readonly ProbeVerdict[]
  runs: readonly RunRecord[]
}): PolicySummary[] {
  const pairs: { policy: LabPolicy; window: number }[] = []
  const same = (pair: { policy: LabPolicy; window: number }, other: { policy: LabPolicy; window: number }): boolean =>
    pair.policy === other.policy && pair.window === other.window
  for (const run of options.runs) {
    if (!pairs.some((pair) => same(pair, run))) pairs.push({ policy: run.policy, window: run.window })
  }
  return pairs.map((pair) => {
    const { policy, window } = pair
    const verdicts = options.verdicts.filter((verdict) => same(verdict, pair) && verdict.survived !== null)
    const metrics = addRunMetrics(options.runs.filter((run) => same(run, pair)).map((run) => run.metrics))
    const byKind = Object.fromEntries(
      PROBE_KINDS.map((kind) => [kind, survival(verdicts.filter((verdict) => verdict.kind === kind))]),
    ) as Record<ProbeKind, Survival>
    return {
      policy,
      window,
      survival: survival(verdicts.filter((verdict) => verdict.kind !== "incidental")),
      byKind,
      turns: metrics.turns,
      meanPromptTokens: metrics.turns === 0 ? 0 : metrics.promptTokens / metrics.turns,
      maxPromptTokens: metrics.maxPromptTokens,
      floorViolations: metrics.floorViolations,
      prefixChanges: metrics.prefixChanges,
      prefixChangesPer100Turns: metrics.turns === 0 ? 0 : (metrics.prefixChanges / metrics.turns) * 100,
      tierSwitches: metrics.tierSwitches,
      executePasses: metrics.executePasses,
    }
  })
}

function survival(verdicts: readonly ProbeVerdict[]): Survival {
  const survived = verdicts.filter((verdict) => verdict.survived === true).length
  return { probes: verdicts.length, survived, rate: verdicts.length === 0 ? null : survived / verdicts.length }
}
