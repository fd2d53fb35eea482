import { defaultConfig, type Config } from "../config/schema.js"
import type { TokenCounter } from "../tokens/token-counter.js"
import { byTrace, replayRun, tryReadTranscript, type ProbeEvaluation } from "./evaluate-probes.js"
import type { Probe } from "./probe-file.js"
import type { LabPolicy } from "./probe-verdict.js"

/** A window is searched to within this share of the target mean prompt tokens, in at most MAX_STEPS replays. */
export const ISO_TOLERANCE = 0.01
export const MAX_STEPS = 8

/** A baseline at the window where its mean prompt tokens match the default's at `window`. */
export type IsoTokenPoint = {
  window: number
  policy: LabPolicy
  /** The window the search settled on, and what the baseline kept and cost there. */
  matchedWindow: number
  meanPromptTokens: number
  survived: number
  probes: number
  /** The default policy at `window`, for comparison. */
  defaultMeanPromptTokens: number
  defaultSurvived: number
}

/**
 * The comparison at equal cost: for each window and each baseline, searches (bisection on the window, at most
 * MAX_STEPS replays of every transcript) the window at which the baseline's mean prompt tokens over all transcripts
 * come within ISO_TOLERANCE of the default's at that window, and reports the baseline's survival there. Only the
 * probes the evaluation found valid count, non-incidental ones as in the summary. Deterministic.
 */
export async function isoTokenPoints(options: {
  evaluation: ProbeEvaluation
  probes: readonly Probe[]
  baselines: readonly Exclude<LabPolicy, "full" | "default">[]
  windows: readonly number[]
  counter: TokenCounter
  config?: Config
}): Promise<IsoTokenPoint[]> {
  const settings = { config: options.config ?? defaultConfig(), counter: options.counter }
  const valid = new Set(options.evaluation.validity.filter((entry) => entry.valid).map((entry) => entry.probeId))
  const probes = options.probes.filter((probe) => valid.has(probe.id))
  const traces = byTrace(probes).flatMap(([tracePath, traceProbes]) => {
    const transcript = tryReadTranscript(tracePath)
    return transcript.ok ? [{ transcript: transcript.value, probes: traceProbes }] : []
  })
  const measure = async (policy: Exclude<LabPolicy, "full">, window: number): Promise<{ mean: number; survived: number; probes: number }> => {
    let tokens = 0
    let turns = 0
    let survived = 0
    let checked = 0
    for (const trace of traces) {
      const run = await replayRun({ transcript: trace.transcript, probes: trace.probes, policy, window, settings })
      tokens += run.metrics.promptTokens
      turns += run.metrics.turns
      run.observations.forEach((observation, index) => {
        if (observation.survived === null || trace.probes[index]?.kind === "incidental") return
        checked += 1
        if (observation.survived) survived += 1
      })
    }
    return { mean: turns === 0 ? 0 : tokens / turns, survived, probes: checked }
  }
  const points: IsoTokenPoint[] = []
  for (const window of options.windows) {
    const reference = options.evaluation.summaries.find((summary) => summary.policy === "default" && summary.window === window)
    if (!reference) continue
    const target = reference.meanPromptTokens
    for (const policy of options.baselines) {
      const found = await searchWindow({ window, target, measure: (candidate) => measure(policy, candidate) })
      points.push({
        window,
        policy,
        matchedWindow: found.window,
        meanPromptTokens: found.mean,
        survived: found.survived,
        probes: found.probes,
        defaultMeanPromptTokens: target,
        defaultSurvived: reference.survival.survived,
      })
    }
  }
  return points
}

type Measured = { mean: number; survived: number; probes: number }

/**
 * Bisection on the window (rounded to 100 tokens) for a mean prompt size within ISO_TOLERANCE of `target`; mean
 * tokens grow with the window. Returns the closest window measured.
 */
export async function searchWindow(options: {
  window: number
  target: number
  measure: (window: number) => Promise<Measured>
}): Promise<Measured & { window: number }> {
  const { target } = options
  const round = (value: number): number => Math.max(1_000, Math.round(value / 100) * 100)
  let best: Measured & { window: number } = { window: options.window, ...(await options.measure(options.window)) }
  const close = (point: Measured): boolean => Math.abs(point.mean - target) <= target * ISO_TOLERANCE
  if (close(best)) return best
  // Bracket between the window and twice it (the baseline is cheaper) or half it (dearer).
  let low = best.mean < target ? options.window : round(options.window * 0.5)
  let high = best.mean < target ? round(options.window * 2) : options.window
  for (let step = 1; step < MAX_STEPS && high - low > 100; step += 1) {
    const middle = round((low + high) / 2)
    const point = { window: middle, ...(await options.measure(middle)) }
    if (Math.abs(point.mean - target) < Math.abs(best.mean - target)) best = point
    if (close(point)) break
    if (point.mean < target) low = middle
    else high = middle
  }
  return best
}
