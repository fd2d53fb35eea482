import { correlatePasses, type PassCorrelation } from "./pass-correlation.js"
import type { BenchConfiguration } from "./configurations.js"
import type { EnginePrices } from "./engine-prices.js"
import type { RequestKind } from "./request-kind.js"
import { reduceCalls, type ReduceCall } from "./reduce-calls.js"
import type { RequestMetrics } from "./request-metrics.js"
import type { ConfigurationRun, TurnRun } from "./run-configuration.js"

/** One configuration in bench-e2e.json. */
export type ConfigurationResult = {
  id: BenchConfiguration["id"]
  title: string
  /** The price list magic-context was configured with for the mock model, or null. */
  priceList: BenchConfiguration["priceList"]
  /** The write and read prices magic-context's passes billed under (its store), or null without magic-context. */
  enginePrices: EnginePrices | null
  settings: string
  pluginVersion: string | null
  /** null for OpenCode alone; false with `pluginProblem` saying why. */
  pluginLoaded: boolean | null
  pluginProblem: string | null
  /** Why the configuration did not run at all, or null. */
  unavailable: string | null
  /** Every turn exited 0, printed its final scripted text, and used all its scripted steps. */
  finished: boolean
  turns: TurnRun[]
  wallTime: { totalMs: number; perTurnMs: number[]; perTurnMeanMs: number; perModelCallMs: number }
  requestCounts: Record<RequestKind, number>
  /** Prompt tokens of all side requests (title, compaction, historian, other), which the main metrics leave out. */
  sideRequestTokens: number
  /** The side requests in arrival order (`n` is the mock's count over all requests, as in the metrics' rows). */
  sideRequests: { n: number; kind: RequestKind; promptTokens: number }[]
  /** Prefix breaks on the first main call after an OpenCode compaction request; the rest have other causes. */
  breaksAfterCompaction: number
  /**
   * Main requests beyond a turn's scripted steps (each answered with the turn's final text again), and how many of
   * them answer OpenCode's synthetic "Continue…" turn after a compaction.
   */
  extraRequests: { total: number; afterCompaction: number }
  /** The session's edit and write calls, and how many of them failed (the tools ran for real). */
  edits: { calls: number; failed: number }
  /**
   * magic-context reminders that appeared in main requests (each new block once) and how many of them the agent
   * answered with ctx_reduce (only the cooperative agent does).
   */
  reminders: { seen: number; answered: number }
  /** The cooperative agent's ctx_reduce calls and magic-context's answers. */
  reduceCalls: ReduceCall[]
  metrics: RequestMetrics | null
  /** magic-context only: where its prefix breaks fall relative to its execute passes (from its store). */
  passes: PassCorrelation | null
}

/** The result of a configuration that could not run. */
export function unavailableResult(configuration: BenchConfiguration, reason: string): ConfigurationResult {
  return {
    ...identity(configuration),
    enginePrices: null,
    pluginLoaded: configuration.pluginTool === null ? null : false,
    pluginProblem: reason,
    unavailable: reason,
    finished: false,
    turns: [],
    wallTime: { totalMs: 0, perTurnMs: [], perTurnMeanMs: 0, perModelCallMs: 0 },
    requestCounts: { main: 0, title: 0, compaction: 0, historian: 0, other: 0 },
    sideRequestTokens: 0,
    sideRequests: [],
    breaksAfterCompaction: 0,
    extraRequests: { total: 0, afterCompaction: 0 },
    edits: { calls: 0, failed: 0 },
    reminders: { seen: 0, answered: 0 },
    reduceCalls: [],
    metrics: null,
    passes: null,
  }
}

/** Puts a run and its measured main requests together. */
export function configurationResult(options: {
  configuration: BenchConfiguration
  run: ConfigurationRun
  metrics: RequestMetrics
  edits: { calls: number; failed: number }
  scriptedTurns: number
}): ConfigurationResult {
  const { configuration, run, metrics } = options
  const perTurnMs = run.turns.map((turn) => Math.round(turn.durationMs))
  const totalMs = perTurnMs.reduce((total, value) => total + value, 0)
  const requestCounts: Record<RequestKind, number> = { main: 0, title: 0, compaction: 0, historian: 0, other: 0 }
  for (const request of run.requests) requestCounts[request.answered.kind] += 1
  const sideRequests = run.requests
    .filter((request) => request.answered.kind !== "main")
    .map(({ answered }) => ({ n: answered.n, kind: answered.kind, promptTokens: answered.promptTokens }))
  const finished =
    run.turns.length === options.scriptedTurns &&
    run.turns.every((turn) => turn.exitCode === 0 && turn.finalTextShown && turn.mainRequests >= turn.scriptedSteps)
  return {
    ...identity(configuration),
    enginePrices: run.enginePrices,
    pluginLoaded: run.pluginLoaded,
    pluginProblem: run.pluginProblem,
    unavailable: null,
    finished,
    turns: run.turns,
    wallTime: {
      totalMs,
      perTurnMs,
      perTurnMeanMs: perTurnMs.length === 0 ? 0 : Math.round(totalMs / perTurnMs.length),
      perModelCallMs: requestCounts.main === 0 ? 0 : Math.round(totalMs / requestCounts.main),
    },
    requestCounts,
    sideRequestTokens: sideRequests.reduce((total, request) => total + request.promptTokens, 0),
    sideRequests,
    breaksAfterCompaction: breaksAfterCompaction(metrics, sideRequests),
    extraRequests: extraRequests(run),
    edits: options.edits,
    reminders: {
      seen: run.requests.reduce((total, request) => total + request.answered.newReminders, 0),
      answered: run.requests.filter((request) => request.answered.reduceDrop !== null).length,
    },
    reduceCalls: reduceCalls(run),
    metrics,
    passes: run.passDecisions ? correlatePasses({ rows: metrics.rows, decisions: run.passDecisions }) : null,
  }
}

/** Breaks whose call follows a compaction request that came after the previous main call. */
function breaksAfterCompaction(metrics: RequestMetrics, sideRequests: ConfigurationResult["sideRequests"]): number {
  const compactions = sideRequests.filter((request) => request.kind === "compaction").map((request) => request.n)
  return metrics.rows.filter((row, index) => {
    const previous = metrics.rows[index - 1]
    return row.prefixBreak === true && previous && compactions.some((n) => n > previous.n && n < row.n)
  }).length
}

function extraRequests(run: ConfigurationRun): ConfigurationResult["extraRequests"] {
  const extras = run.requests.filter((request) => {
    const { kind, step, turn } = request.answered
    return kind === "main" && step !== null && step >= (run.turns[turn]?.scriptedSteps ?? Number.POSITIVE_INFINITY)
  })
  return {
    total: extras.length,
    afterCompaction: extras.filter((request) => request.answered.continuesAfterCompaction).length,
  }
}

function identity(
  configuration: BenchConfiguration,
): Pick<ConfigurationResult, "id" | "title" | "priceList" | "settings" | "pluginVersion"> {
  return {
    id: configuration.id,
    title: configuration.title,
    priceList: configuration.priceList,
    settings: configuration.settings,
    pluginVersion: configuration.pluginVersion,
  }
}
