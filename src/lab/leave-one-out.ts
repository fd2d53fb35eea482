import { recognizersWithout, rulesTunedOn } from "../session/recognizers.js"
import { byTrace, evaluateProbes, type ProbeEvaluation } from "./evaluate-probes.js"
import type { Probe } from "./probe-file.js"
import type { LabPolicy } from "./probe-verdict.js"
import type { RunRecord, Survival } from "./summarize-probes.js"

/** One transcript scored at one policy and window with all rules and with the rules tuned on it switched off. */
export type FoldRow = {
  /** The transcript as the probe file names it. */
  trace: string
  /** The rules tuned on this transcript (`rulesTunedOn`): switched off for its fold. */
  rulesOff: string[]
  policy: LabPolicy
  window: number
  allRules: Survival
  fold: Survival
}

/** The pooled row: every transcript scored by its own fold, against all rules, per policy and window. */
export type PooledFoldRow = Omit<FoldRow, "trace" | "rulesOff">

/** What every fold replays with: the settings of `evaluateProbes` but the probes and the rules. */
type FoldSettings = Omit<Parameters<typeof evaluateProbes>[0], "probes" | "recognizers">

/** `lab --folds`: one row per transcript × policy × window, and the pooled rows. */
export type FoldReport = { folds: FoldRow[]; pooled: PooledFoldRow[] }

/**
 * Leave-one-transcript-out: every transcript of the probes is scored (each policy at each window) with all rules
 * (from `allRules`, the evaluation of every probe) and again with the rules tuned on it switched off, so no rule is
 * scored on a transcript it was tuned on. A transcript no rule was tuned on scores the same in its fold (not
 * replayed again). Transcripts in path order; deterministic.
 */
export async function leaveOneOutFolds(
  options: FoldSettings & {
    probes: readonly Probe[]
    /** The evaluation of every probe with all rules, at the same policies and windows. */
    allRules: ProbeEvaluation
  },
): Promise<FoldReport> {
  const { probes, allRules, ...settings } = options
  const folds: FoldRow[] = []
  for (const [tracePath, traceProbes] of byTrace(probes)) {
    const rulesOff = rulesTunedOn(tracePath)
    const allRuns = allRules.runs.filter((run) => run.trace === tracePath && run.policy !== "full")
    const foldRuns =
      rulesOff.length === 0
        ? allRuns
        : (await evaluateProbes({ ...settings, probes: traceProbes, recognizers: recognizersWithout(rulesOff) })).runs
    for (const run of allRuns) {
      const fold = foldRuns.find((entry) => samePair(entry, run))
      if (fold === undefined) continue
      folds.push({ trace: run.traceName, rulesOff, policy: run.policy, window: run.window, allRules: run.survival, fold: fold.survival })
    }
  }
  return { folds, pooled: pooledRows(folds) }
}

function pooledRows(folds: readonly FoldRow[]): PooledFoldRow[] {
  const pooled: PooledFoldRow[] = []
  for (const row of folds) {
    const index = pooled.findIndex((entry) => samePair(entry, row))
    const existing = pooled[index]
    if (existing === undefined) {
      pooled.push({ policy: row.policy, window: row.window, allRules: row.allRules, fold: row.fold })
      continue
    }
    pooled[index] = { ...existing, allRules: addSurvival(existing.allRules, row.allRules), fold: addSurvival(existing.fold, row.fold) }
  }
  return pooled
}

function samePair(left: Pick<RunRecord, "policy" | "window">, right: Pick<RunRecord, "policy" | "window">): boolean {
  return left.policy === right.policy && left.window === right.window
}

function addSurvival(left: Survival, right: Survival): Survival {
  const probes = left.probes + right.probes
  const survived = left.survived + right.survived
  return { probes, survived, rate: probes === 0 ? null : survived / probes }
}
