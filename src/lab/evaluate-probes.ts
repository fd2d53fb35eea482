import { defaultConfig, type Config } from "../config/schema.js"
import { compilePinPatterns } from "../historian/pin-patterns.js"
import { replayTranscript } from "../pass/replay-transcript.js"
import type { Clock } from "../pass/system-clock.js"
import { isPluginError } from "../plugin-error.js"
import { fixedWindow } from "../pressure/model-window.js"
import { fail, ok, type Result } from "../result.js"
import type { SelectionPolicy } from "../render/select-tiers.js"
import { MEMORY_DATABASE, openDatabase } from "../store/open-database.js"
import type { TokenCounter } from "../tokens/token-counter.js"
import { readTranscript } from "../transcript/read-transcript.js"
import type { Transcript } from "../transcript/turn-model.js"
import type { Probe } from "./probe-file.js"
import { probeValidity, type ProbeValidity } from "./probe-validity.js"
import type { LabPolicy, ProbeVerdict } from "./probe-verdict.js"
import { probeAtTurns, recordTurns } from "./probe-turns.js"
import { recordTexts } from "./record-text.js"
import { runMetrics, type RunMetrics, type TurnMeasure } from "./run-metrics.js"
import { neededSurvival, summarizeProbes, type PolicySummary, type RunRecord } from "./summarize-probes.js"
import { createProbeTracker, type ProbeObservation } from "./track-probes.js"
import { createProbeGuide } from "./probe-guide.js"
import { generationCost, type GenerationCost } from "./generation-cost.js"
import { turnPoints, type TurnPoint } from "./turn-points.js"
import { createPromptCostMeter, runCost, type CallCost, type RunCost } from "./prompt-cost.js"
import type { Recognizers } from "../session/recognizers.js"

/** The usable window of the `full` reference: so large that nothing is ever reduced. */
export const UNREDUCED_WINDOW_TOKENS = 1_000_000_000

/** The Lab's answer for a probe list: which probes are sound, which survived where, and what each run cost. */
export type ProbeEvaluation = {
  /** One entry per probe, in the order given. Invalid probes are fixture bugs and get no verdicts. */
  validity: ProbeValidity[]
  /** Per valid probe × policy × window: `full` (at UNREDUCED_WINDOW_TOKENS) first, then the order given. */
  verdicts: ProbeVerdict[]
  /** Per transcript × policy × window, in replay order (transcripts by path, `full` first for each). */
  runs: RunRecord[]
  /** Per policy × window over all transcripts, `full` first. */
  summaries: PolicySummary[]
}

/** What an evaluation compares: the policies, each at every window, besides the `full` reference. */
type Grid = { policies: readonly Exclude<LabPolicy, "full">[]; windows: readonly number[] }

/** The replay settings every run of an evaluation shares; `recognizers` (all when absent) are the named rules on. */
export type ReplaySettings = { config: Config; counter: TokenCounter; recognizers?: Recognizers }

/**
 * Replays each transcript the probes name once per (policy, window), each time into a fresh in-memory store, and
 * checks every probe at its model call (see `createProbeTracker`). A probe is valid when `exact` is in the turn that
 * holds record `t` and in no earlier turn, and survives under `full` (a replay in UNREDUCED_WINDOW_TOKENS) at `need`. Transcripts are
 * replayed in path order, policies and windows in the order given; the result is deterministic.
 */
export async function evaluateProbes(options: {
  /** Probes with resolved `tracePath`s (`parseProbeFile`). */
  probes: readonly Probe[]
  policies: readonly Exclude<LabPolicy, "full">[]
  /** Usable windows in tokens. */
  windows: readonly number[]
  counter: TokenCounter
  /** Execute threshold, budgets, pins and smart drops; the defaults when absent. */
  config?: Config
  /** The named rules on (`lab --without`, `lab --folds`); all when absent. */
  recognizers?: Recognizers
  /** Called after each replay (progress for long runs). */
  onRun?: (run: RunRecord) => void
}): Promise<ProbeEvaluation> {
  const settings: ReplaySettings = {
    config: options.config ?? defaultConfig(),
    counter: options.counter,
    recognizers: options.recognizers,
  }
  const validity = new Map<string, ProbeValidity>()
  const verdicts: ProbeVerdict[] = []
  const runs: RunRecord[] = []
  for (const [tracePath, probes] of byTrace(options.probes)) {
    const outcome = await evaluateTrace({ tracePath, probes, grid: options, settings, onRun: options.onRun })
    for (const entry of outcome.validity) validity.set(entry.probeId, entry)
    verdicts.push(...outcome.verdicts)
    runs.push(...outcome.runs)
  }
  const ordered = orderVerdicts(verdicts, options)
  return {
    validity: options.probes.map((probe) => validity.get(probe.id) ?? notEvaluated(probe)),
    verdicts: ordered,
    runs,
    summaries: summarizeProbes({ verdicts: ordered, runs: [...runs].sort(byPair(options)) }),
  }
}

/** A clock that never moves: the Lab's records must not depend on when it ran (turn times drive the passes). */
export const LAB_CLOCK: Clock = { now: () => 0, mark: () => 0, elapsedMs: () => 0 }

/** The `full` run (validity) and then every policy × window of one transcript's probes. */
async function evaluateTrace(options: {
  tracePath: string
  probes: readonly Probe[]
  grid: Grid
  settings: ReplaySettings
  onRun: ((run: RunRecord) => void) | undefined
}): Promise<{ validity: ProbeValidity[]; verdicts: ProbeVerdict[]; runs: RunRecord[] }> {
  const { tracePath, probes, grid, settings } = options
  const transcript = tryReadTranscript(tracePath)
  if (!transcript.ok) {
    const problems = [transcript.error]
    return { validity: probes.map((probe) => ({ probeId: probe.id, valid: false, problems })), verdicts: [], runs: [] }
  }
  const verdicts: ProbeVerdict[] = []
  const runs: RunRecord[] = []
  const record = (run: Omit<RunRecord, "survival">, checked: readonly Probe[], observations: readonly ProbeObservation[]): void => {
    const runVerdicts = checked.map((probe, index): ProbeVerdict => {
      const observation = observations[index] ?? { probeId: probe.id, needTurn: null, survived: null }
      return { ...observation, kind: probe.kind, policy: run.policy, window: run.window }
    })
    const survival = neededSurvival(runVerdicts)
    runs.push({ ...run, survival })
    options.onRun?.({ ...run, survival })
    verdicts.push(...runVerdicts)
  }

  const records = recordTexts(transcript.value)
  const turns = recordTurns(transcript.value)
  const replay = (policy: Exclude<LabPolicy, "full">, window: number, checked: readonly Probe[]) =>
    replayRun({ transcript: transcript.value, probes: checked, policy, window, settings })
  // `full` is the engine's default policy in a window it never fills: nothing is reduced, nothing folded.
  const full = await replay("default", UNREDUCED_WINDOW_TOKENS, probes)
  const validity = probes.map((probe, index) => probeValidity({ probe, records, turns, full: full.observations[index] }))
  const isValid = (_: unknown, index: number): boolean => validity[index]?.valid === true
  const valid = probes.filter(isValid)
  const traceName = probes[0]?.trace ?? tracePath
  const reference = { trace: tracePath, traceName, policy: "full", window: UNREDUCED_WINDOW_TOKENS } as const
  record({ ...reference, ...runOutput(full) }, valid, full.observations.filter(isValid))
  for (const policy of grid.policies) {
    for (const window of grid.windows) {
      const run = await replay(policy, window, valid)
      record({ trace: tracePath, traceName, policy, window, ...runOutput(run) }, valid, run.observations)
    }
  }
  return { validity, verdicts, runs }
}

type RunOutput = Pick<RunRecord, "metrics" | "cost" | "points" | "generation">

function runOutput(run: RunOutput): RunOutput {
  return { metrics: run.metrics, cost: run.cost, points: run.points, generation: run.generation }
}

/**
 * One replay of a transcript into a fresh in-memory store, checking `probes` on the way; each probe's `t` and `need`
 * are taken as the turns that hold those records (`probeAtTurns`).
 */
export async function replayRun(options: {
  transcript: Transcript
  probes: readonly Probe[]
  policy: Exclude<LabPolicy, "full">
  window: number
  settings: ReplaySettings
}): Promise<{ observations: ProbeObservation[]; metrics: RunMetrics; cost: RunCost; points: TurnPoint[]; generation: GenerationCost }> {
  const { config, counter, recognizers } = options.settings
  const turns = recordTurns(options.transcript)
  const probes = options.probes.map((probe) => probeAtTurns(probe, turns))
  const tracker = createProbeTracker(probes)
  // The oracle and the promotion condition are told the probes; every other policy is not.
  const guided = options.policy === "oracle" || options.policy === "oracle-promotion"
  const guide = guided ? createProbeGuide(probes) : null
  const policy: SelectionPolicy = options.policy === "oracle-promotion" ? "default" : options.policy
  const measures: (TurnMeasure & { turn: number })[] = []
  const meter = createPromptCostMeter(counter)
  const costs: CallCost[] = []
  const db = await openDatabase(MEMORY_DATABASE)
  try {
    const { sessionId } = replayTranscript({
      transcript: options.transcript,
      db,
      counter,
      clock: LAB_CLOCK,
      window: fixedWindow({ usableTokens: options.window, config }),
      smartDrops: config.smart_drops,
      policy,
      pinPatterns: compilePinPatterns(config.pins).matchers,
      guide,
      recognizers,
      beforeTurn: (turn) => guide?.moveTo(turn),
      onTurn: (turn) => {
        tracker.observe(turn)
        // Keep the turn without its prompt: a run holds one prompt at a time.
        const { pass, tokens, prefixChanged, history } = turn
        measures.push({ turn: turn.turn, pass, tokens, prefixChanged, history })
        costs.push(meter.measure(turn))
      },
    })
    return {
      observations: tracker.observations(),
      metrics: runMetrics(measures),
      cost: runCost(costs),
      points: turnPoints(measures),
      generation: generationCost(db, sessionId),
    }
  } finally {
    db.close()
  }
}

/** Probes grouped by transcript, transcripts in path order, probes in the order given. */
export function byTrace(probes: readonly Probe[]): [string, Probe[]][] {
  const groups = new Map<string, Probe[]>()
  for (const probe of probes) groups.set(probe.tracePath, [...(groups.get(probe.tracePath) ?? []), probe])
  return [...groups].sort(([left], [right]) => (left < right ? -1 : left > right ? 1 : 0))
}

export function tryReadTranscript(tracePath: string): Result<Transcript> {
  try {
    return ok(readTranscript(tracePath))
  } catch (error) {
    if (!isPluginError(error)) throw error
    return fail(`trace: ${error.message}`)
  }
}

function notEvaluated(probe: Probe): ProbeValidity {
  return { probeId: probe.id, valid: false, problems: ["not evaluated"] }
}

type OrderedGrid = Grid & { probes: readonly Probe[] }

/** `full` first, then policies and windows in the order given, probes in the order given within each. */
function orderVerdicts(verdicts: readonly ProbeVerdict[], options: OrderedGrid): ProbeVerdict[] {
  const probeOrder = new Map(options.probes.map((probe, index) => [probe.id, index]))
  const position = (verdict: ProbeVerdict): number => probeOrder.get(verdict.probeId) ?? 0
  const compare = byPair(options)
  return [...verdicts].sort((left, right) => compare(left, right) || position(left) - position(right))
}

type Pair = { policy: LabPolicy; window: number }

/** Orders entries by (policy, window): `full` first, then policies and windows in the order given. */
function byPair(grid: Grid): (left: Pair, right: Pair) => number {
  const rank = (entry: Pair): [number, number] =>
    entry.policy === "full" ? [-1, 0] : [grid.policies.indexOf(entry.policy), grid.windows.indexOf(entry.window)]
  return (left, right) => {
    const [leftPolicy, leftWindow] = rank(left)
    const [rightPolicy, rightWindow] = rank(right)
    return leftPolicy - rightPolicy || leftWindow - rightWindow
  }
}
