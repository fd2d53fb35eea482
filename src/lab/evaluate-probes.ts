import { defaultConfig, type Config } from "../config/schema.js"
import { compilePinPatterns } from "../historian/pin-patterns.js"
import { replayTranscript } from "../pass/replay-transcript.js"
import type { Clock } from "../pass/run-pass.js"
import { isPluginError } from "../plugin-error.js"
import { fixedWindow } from "../pressure/model-window.js"
import { fail, ok, type Result } from "../result.js"
import type { SelectionPolicy } from "../render/select-tiers.js"
import { MEMORY_DATABASE, openDatabase } from "../store/open-database.js"
import type { TokenCounter } from "../tokens/token-counter.js"
import { readTranscript } from "../transcript/read-transcript.js"
import type { Transcript } from "../transcript/turn-model.js"
import { checkProbeSource } from "./check-probe-source.js"
import type { Probe } from "./probe-file.js"
import type { LabPolicy, ProbeVerdict } from "./probe-verdict.js"
import { recordTexts } from "./record-text.js"
import { runMetrics, type RunMetrics, type TurnMeasure } from "./run-metrics.js"
import { summarizeProbes, type PolicySummary, type RunRecord } from "./summarize-probes.js"
import { createProbeTracker, type ProbeObservation } from "./track-probes.js"

/** The usable window of the `full` reference: so large that nothing is ever reduced. */
export const UNREDUCED_WINDOW_TOKENS = 1_000_000_000

/** Whether a probe is a sound test: its fact is in its source where it says, and the unreduced prompt carries it. */
export type ProbeValidity = { probeId: string; valid: boolean; problems: string[] }

/** The Lab's answer for a probe list: which probes are sound, which survived where, and what each run cost. */
export type ProbeEvaluation = {
  /** One entry per probe, in the order given. Invalid probes are fixture bugs and get no verdicts. */
  validity: ProbeValidity[]
  /** Per valid probe × policy × window, `full` (at UNREDUCED_WINDOW_TOKENS) first. */
  verdicts: ProbeVerdict[]
  /** Per transcript × policy × window. */
  runs: RunRecord[]
  /** Per policy × window over all transcripts, `full` first. */
  summaries: PolicySummary[]
}

/**
 * Replays each transcript the probes name once per (policy, window), each time into a fresh in-memory store, and
 * checks every probe at its model call (see `createProbeTracker`). A probe is valid when `exact` is in record `t` and
 * in no earlier record, and survives under `full` (a replay in UNREDUCED_WINDOW_TOKENS) at `need`. Transcripts are
 * replayed in path order, policies and windows in the order given; the result is deterministic.
 */
export async function evaluateProbes(options: {
  /** Probes with resolved `tracePath`s (`parseProbeFile`). */
  probes: readonly Probe[]
  policies: readonly SelectionPolicy[]
  /** Usable windows in tokens. */
  windows: readonly number[]
  counter: TokenCounter
  /** Execute threshold, budgets, pins and smart drops; the defaults when absent. */
  config?: Config
  /** Called after each replay (progress for long runs). */
  onRun?: (run: RunRecord) => void
}): Promise<ProbeEvaluation> {
  const config = options.config ?? defaultConfig()
  const validity = new Map<string, ProbeValidity>()
  const verdicts: ProbeVerdict[] = []
  const runs: RunRecord[] = []
  const record = (run: RunRecord, probes: readonly Probe[], observations: readonly ProbeObservation[]): void => {
    runs.push(run)
    options.onRun?.(run)
    observations.forEach((observation, index) => {
      const probe = probes[index] as Probe
      verdicts.push({ ...observation, kind: probe.kind, policy: run.policy, window: run.window })
    })
  }

  for (const [tracePath, probes] of byTrace(options.probes)) {
    const transcript = tryReadTranscript(tracePath)
    if (!transcript.ok) {
      for (const probe of probes) validity.set(probe.id, { probeId: probe.id, valid: false, problems: [transcript.error] })
      continue
    }
    const records = recordTexts(transcript.value)
    const full = await replayRun({ transcript: transcript.value, probes, policy: "default", window: UNREDUCED_WINDOW_TOKENS, config, counter: options.counter })
    const checked = probes.map((probe, index) => judgeValidity(probe, records, full.observations[index]))
    for (const entry of checked) validity.set(entry.probeId, entry)
    const valid = probes.filter((_, index) => checked[index]?.valid === true)
    record(
      { trace: tracePath, policy: "full", window: UNREDUCED_WINDOW_TOKENS, metrics: full.metrics },
      valid,
      full.observations.filter((_, index) => checked[index]?.valid === true),
    )
    for (const policy of options.policies) {
      for (const window of options.windows) {
        const run = await replayRun({ transcript: transcript.value, probes: valid, policy, window, config, counter: options.counter })
        record({ trace: tracePath, policy, window, metrics: run.metrics }, valid, run.observations)
      }
    }
  }

  const ordered = orderVerdicts(verdicts, options)
  return {
    validity: options.probes.map((probe) => validity.get(probe.id) ?? { probeId: probe.id, valid: false, problems: ["not evaluated"] }),
    verdicts: ordered,
    runs,
    summaries: summarizeProbes({ verdicts: ordered, runs: orderRuns(runs, options) }),
  }
}

/** A clock that never moves: the Lab's records must not depend on when it ran (turn times drive the passes). */
const LAB_CLOCK: Clock = { now: () => 0, mark: () => 0, elapsedMs: () => 0 }

/** One replay of a transcript into a fresh in-memory store, checking `probes` on the way. */
async function replayRun(options: {
  transcript: Transcript
  probes: readonly Probe[]
  policy: SelectionPolicy
  window: number
  config: Config
  counter: TokenCounter
}): Promise<{ observations: ProbeObservation[]; metrics: RunMetrics }> {
  const { config } = options
  const tracker = createProbeTracker(options.probes)
  const measures: TurnMeasure[] = []
  const db = await openDatabase(MEMORY_DATABASE)
  try {
    replayTranscript({
      transcript: options.transcript,
      db,
      counter: options.counter,
      clock: LAB_CLOCK,
      window: fixedWindow({ usableTokens: options.window, config }),
      smartDrops: config.smart_drops,
      policy: options.policy,
      pinPatterns: compilePinPatterns(config.pins).matchers,
      onTurn: (turn) => {
        tracker.observe(turn)
        measures.push({ pass: turn.pass, tokens: turn.tokens, prefixChanged: turn.prefixChanged, history: turn.history })
      },
    })
  } finally {
    db.close()
  }
  return { observations: tracker.observations(), metrics: runMetrics(measures) }
}

function judgeValidity(probe: Probe, records: ReadonlyMap<number, string>, full: ProbeObservation | undefined): ProbeValidity {
  const problems = checkProbeSource(probe, records)
  if (probe.need !== null && full?.needTurn == null) problems.push(`need: no model call at or after record ${probe.need}`)
  else if (probe.need !== null && full?.survived === false) {
    problems.push(`exact: not in the unreduced prompt of the model call at record ${full.needTurn} (policy full)`)
  }
  return { probeId: probe.id, valid: problems.length === 0, problems }
}

/** Probes grouped by transcript, transcripts in path order, probes in the order given. */
function byTrace(probes: readonly Probe[]): [string, Probe[]][] {
  const groups = new Map<string, Probe[]>()
  for (const probe of probes) groups.set(probe.tracePath, [...(groups.get(probe.tracePath) ?? []), probe])
  return [...groups].sort(([left], [right]) => (left < right ? -1 : left > right ? 1 : 0))
}

function tryReadTranscript(tracePath: string): Result<Transcript> {
  try {
    return ok(readTranscript(tracePath))
  } catch (error) {
    if (!isPluginError(error)) throw error
    return fail(`trace: ${error.message}`)
  }
}

/** `full` first, then policies and windows in the order given, probes in the order given within each. */
function orderVerdicts(
  verdicts: readonly ProbeVerdict[],
  options: { probes: readonly Probe[]; policies: readonly SelectionPolicy[]; windows: readonly number[] },
): ProbeVerdict[] {
  const probeOrder = new Map(options.probes.map((probe, index) => [probe.id, index]))
  const key = (verdict: ProbeVerdict): number[] => [...pairKey(verdict, options), probeOrder.get(verdict.probeId) ?? 0]
  return [...verdicts].sort((left, right) => compareKeys(key(left), key(right)))
}

function orderRuns(runs: readonly RunRecord[], options: { policies: readonly SelectionPolicy[]; windows: readonly number[] }): RunRecord[] {
  return [...runs].sort((left, right) => compareKeys(pairKey(left, options), pairKey(right, options)))
}

function pairKey(entry: { policy: LabPolicy; window: number }, options: { policies: readonly SelectionPolicy[]; windows: readonly number[] }): number[] {
  if (entry.policy === "full") return [-1, 0]
  return [options.policies.indexOf(entry.policy), options.windows.indexOf(entry.window)]
}

function compareKeys(left: readonly number[], right: readonly number[]): number {
  for (let index = 0; index < left.length; index += 1) {
    const difference = (left[index] ?? 0) - (right[index] ?? 0)
    if (difference !== 0) return difference
  }
  return 0
}
