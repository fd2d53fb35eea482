import { PROBE_KINDS, type ProbeKind } from "./probe-file.js"
import type { LabPolicy, ProbeVerdict } from "./probe-verdict.js"
import { addGenerationCosts, type GenerationCost } from "./generation-cost.js"
import { addRunMetrics, type RunMetrics } from "./run-metrics.js"
import type { TurnPoint } from "./turn-points.js"
import { addRunCosts, type RunCost } from "./prompt-cost.js"

/** The metrics of one replay: one transcript under one policy at one window, with its calls for the charts. */
export type RunRecord = {
  /** The transcript's resolved path (`Probe.tracePath`). */
  trace: string
  /** The transcript as the probe file names it (`Probe.trace`): what reports print, the same on every machine. */
  traceName: string
  policy: LabPolicy
  window: number
  metrics: RunMetrics
  /** The estimated prompt cost of its calls (cached prefix at CACHED_TOKEN_PRICE). */
  cost: RunCost
  /** Of its checked non-incidental probes. */
  survival: Survival
  points: TurnPoint[]
  generation: GenerationCost
}

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
  /** Lines recall by reference brought back over the execute passes, and its tokens per call (the prompt it cost). */
  recalledLines: number
  meanRecalledTokens: number
  /** Survival rate of the non-incidental probes per 1,000 mean prompt tokens (null when none was checked). */
  survivalPer1kTokens: number | null
  /** The estimated prompt cost over all calls: cached prefix tokens at CACHED_TOKEN_PRICE (see `promptCallCost`). */
  cost: RunCost
  /** `cost.costTokens` per call. */
  meanCostTokens: number
  /** Survival rate of the non-incidental probes per 1,000 mean cost tokens (null when none was checked). */
  survivalPer1kCostTokens: number | null
  /** The representations the runs generated, and their cost. */
  generation: GenerationCost
  /** Prompt tokens saved against `full` over the same calls (null without the `full` runs). */
  promptTokensSaved: number | null
  /** Mean prompt tokens above the oracle's at the same window (null without an oracle run, and for the oracle). */
  overFidelityTokens: number | null
  /** Non-incidental probes the oracle kept at the same window that this policy lost (null like overFidelityTokens). */
  underFidelityProbes: number | null
}

/**
 * Summarizes verdicts and runs per (policy, window), in the order the pairs first occur in `runs`. Only checked
 * verdicts count (`survived` not null).
 */
export function summarizeProbes(options: {
  verdicts: readonly ProbeVerdict[]
  runs: readonly RunRecord[]
}): PolicySummary[] {
  const pairs: Pair[] = []
  for (const run of options.runs) {
    if (!pairs.some((pair) => samePair(pair, run))) pairs.push({ policy: run.policy, window: run.window })
  }
  const summaries = pairs.map((pair): PolicySummary => {
    const { policy, window } = pair
    const verdicts = options.verdicts.filter((verdict) => samePair(verdict, pair) && verdict.survived !== null)
    const runs = options.runs.filter((run) => samePair(run, pair))
    const metrics = addRunMetrics(runs.map((run) => run.metrics))
    const byKind = Object.fromEntries(
      PROBE_KINDS.map((kind) => [kind, survival(verdicts.filter((verdict) => verdict.kind === kind))]),
    ) as Record<ProbeKind, Survival>
    const needed = neededSurvival(verdicts)
    const cost = addRunCosts(runs.map((run) => run.cost))
    const meanCostTokens = meanCost(cost)
    return {
      policy,
      window,
      survival: needed,
      byKind,
      turns: metrics.turns,
      meanPromptTokens: metrics.turns === 0 ? 0 : metrics.promptTokens / metrics.turns,
      maxPromptTokens: metrics.maxPromptTokens,
      floorViolations: metrics.floorViolations,
      prefixChanges: metrics.prefixChanges,
      prefixChangesPer100Turns: metrics.turns === 0 ? 0 : (metrics.prefixChanges / metrics.turns) * 100,
      tierSwitches: metrics.tierSwitches,
      executePasses: metrics.executePasses,
      recalledLines: metrics.recalledLines,
      meanRecalledTokens: metrics.turns === 0 ? 0 : metrics.recalledTokens / metrics.turns,
      survivalPer1kTokens: survivalPerTokens(needed, metrics),
      cost,
      meanCostTokens,
      survivalPer1kCostTokens: survivalPer1k(needed, meanCostTokens),
      generation: addGenerationCosts(runs.map((run) => run.generation)),
      promptTokensSaved: null,
      overFidelityTokens: null,
      underFidelityProbes: null,
    }
  })
  return withReferences(summaries, options)
}

type Pair = { policy: LabPolicy; window: number }

function samePair(left: Pair, right: Pair): boolean {
  return left.policy === right.policy && left.window === right.window
}

/** A survival rate per 1,000 of a mean per call (tokens or cost tokens); null when nothing was checked or spent. */
export function survivalPer1k(needed: Survival, meanPerCall: number): number | null {
  if (needed.rate === null || meanPerCall === 0) return null
  return needed.rate / (meanPerCall / 1000)
}

/** The mean cost tokens per call of a run or summary cost (0 without calls). */
export function meanCost(cost: RunCost): number {
  return cost.calls === 0 ? 0 : cost.costTokens / cost.calls
}

function survivalPerTokens(needed: Survival, metrics: RunMetrics): number | null {
  if (needed.rate === null || metrics.turns === 0 || metrics.promptTokens === 0) return null
  return needed.rate / (metrics.promptTokens / metrics.turns / 1000)
}

/**
 * Fills the figures that compare a summary with a reference run: the tokens saved against `full` (same calls, so
 * the difference of the sums), and over- and under-fidelity against the oracle at the same window.
 */
function withReferences(
  summaries: readonly PolicySummary[],
  options: { verdicts: readonly ProbeVerdict[]; runs: readonly RunRecord[] },
): PolicySummary[] {
  const full = summaries.find((summary) => summary.policy === "full")
  const kept = (pair: Pair): Set<string> =>
    new Set(
      options.verdicts
        .filter((verdict) => samePair(verdict, pair) && verdict.kind !== "incidental" && verdict.survived === true)
        .map((verdict) => verdict.probeId),
    )
  return summaries.map((summary) => {
    const oracle = summaries.find((other) => other.policy === "oracle" && other.window === summary.window)
    const comparable = oracle !== undefined && summary.policy !== "oracle" && summary.policy !== "full"
    const oracleKept = comparable ? kept(oracle) : new Set<string>()
    const ownKept = comparable ? kept(summary) : new Set<string>()
    return {
      ...summary,
      promptTokensSaved: full === undefined ? null : Math.round(full.meanPromptTokens * summary.turns - summary.meanPromptTokens * summary.turns),
      overFidelityTokens: comparable ? summary.meanPromptTokens - oracle.meanPromptTokens : null,
      underFidelityProbes: comparable ? [...oracleKept].filter((id) => !ownKept.has(id)).length : null,
    }
  })
}

/** Survival of the checked (`survived` not null), non-incidental verdicts. */
export function neededSurvival(verdicts: readonly ProbeVerdict[]): Survival {
  return survival(verdicts.filter((verdict) => verdict.survived !== null && verdict.kind !== "incidental"))
}

function survival(verdicts: readonly ProbeVerdict[]): Survival {
  const survived = verdicts.filter((verdict) => verdict.survived === true).length
  return { probes: verdicts.length, survived, rate: verdicts.length === 0 ? null : survived / verdicts.length }
}
