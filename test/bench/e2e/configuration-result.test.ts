import { describe, expect, it } from "vitest"
import { configurationResult } from "../../../bench/e2e/configuration-result.js"
import type { BenchConfiguration } from "../../../bench/e2e/configurations.js"
import type { RequestKind } from "../../../bench/e2e/request-kind.js"
import { measureRequests, type RequestMetrics } from "../../../bench/e2e/request-metrics.js"
import type { ConfigurationRun } from "../../../bench/e2e/run-configuration.js"
import type { AnsweredRequest } from "../../../bench/e2e/session-model.js"
import type { ChatMessage } from "../../e2e/harness/mock-model-server.js"

const configuration: BenchConfiguration = {
  id: "opencode",
  title: "OpenCode alone",
  priceList: null,
  cooperative: false,
  reduceStyle: "batched",
  pluginEntry: null,
  pluginVersion: null,
  pluginTool: null,
  compaction: { auto: true, prune: false },
  files: {},
  settings: "no plugin",
  unavailable: null,
}

const answered = (
  n: number,
  kind: RequestKind,
  step: number | null,
  fields: Partial<AnsweredRequest> = {},
  messages: ChatMessage[] = [],
): ConfigurationRun["requests"][number] => ({
  answered: {
    n,
    kind,
    turn: 0,
    step,
    promptTokens: 10 * n,
    continuesAfterCompaction: false,
    newReminders: 0,
    reduceDrop: null,
    ...fields,
  },
  body: { model: "mock", messages },
})

const noRequests = (): RequestMetrics =>
  measureRequests({ requests: [], sideRequests: [], usableWindow: 1, contextWindow: 1, countText: () => 0 })

describe("configurationResult", () => {
  it("counts requests by kind, breaks after a compaction, calls beyond the script and wall time", () => {
    const run: ConfigurationRun = {
      turns: [
        { exitCode: 0, durationMs: 3000, finalTextShown: true, mainRequests: 4, scriptedSteps: 3, failure: null },
      ],
      requests: [
        answered(1, "title", null),
        answered(2, "main", 0),
        answered(3, "main", 1),
        answered(4, "compaction", null),
        answered(5, "main", 2),
        answered(6, "main", 3, { continuesAfterCompaction: true }),
      ],
      pluginLoaded: null,
      pluginProblem: null,
      passDecisions: null,
      enginePrices: null,
    }
    const rows = [
      { n: 2, turn: 0, elements: ["t", "a"], elementTokens: [1, 1] },
      { n: 3, turn: 0, elements: ["t", "a", "b"], elementTokens: [1, 1, 1] },
      { n: 5, turn: 0, elements: ["t", "summary"], elementTokens: [1, 1] },
      { n: 6, turn: 0, elements: ["t", "other"], elementTokens: [1, 1] },
    ]
    const metrics = measureRequests({
      requests: rows,
      sideRequests: [],
      usableWindow: 100,
      contextWindow: 200,
      countText: () => 0,
    })
    const result = configurationResult({
      configuration,
      run,
      metrics,
      edits: { calls: 0, failed: 0 },
      scriptedTurns: 1,
    })
    expect(result).toMatchObject({
      finished: true,
      requestCounts: { main: 4, title: 1, compaction: 1, historian: 0, other: 0 },
      sideRequestTokens: 50,
      breaksAfterCompaction: 1,
      extraRequests: { total: 1, afterCompaction: 1 },
      wallTime: { totalMs: 3000, perTurnMs: [3000], perTurnMeanMs: 3000, perModelCallMs: 750 },
    })
    expect(metrics.prefixBreakAt).toEqual([5, 6])
  })

  it("counts the reminders seen and answered, and pairs each ctx_reduce call with magic-context's answer", () => {
    const run: ConfigurationRun = {
      turns: [{ exitCode: 0, durationMs: 10, finalTextShown: true, mainRequests: 3, scriptedSteps: 2, failure: null }],
      requests: [
        answered(2, "main", 0),
        answered(3, "main", null, { newReminders: 2, reduceDrop: "2-4" }),
        answered(4, "main", 1, {}, [{ role: "tool", tool_call_id: "call_3", content: "§9§ Queued 3 tool outputs." }]),
        answered(5, "main", null, { reduceDrop: "5" }),
      ],
      pluginLoaded: null,
      pluginProblem: null,
      passDecisions: null,
      enginePrices: null,
    }
    const metrics = noRequests()
    const result = configurationResult({
      configuration,
      run,
      metrics,
      edits: { calls: 0, failed: 0 },
      scriptedTurns: 1,
    })
    expect(result.reminders).toEqual({ seen: 2, answered: 2 })
    expect(result.reduceCalls).toEqual([
      { n: 3, drop: "2-4", answer: "Queued 3 tool outputs." },
      { n: 5, drop: "5", answer: null },
    ])
    // Reminder answers take no scripted step: none of them is a call beyond the script.
    expect(result.extraRequests.total).toBe(0)
  })

  it("is unfinished when a turn fell short of its scripted steps", () => {
    const run: ConfigurationRun = {
      turns: [{ exitCode: 0, durationMs: 10, finalTextShown: true, mainRequests: 1, scriptedSteps: 2, failure: "x" }],
      requests: [answered(1, "main", 0)],
      pluginLoaded: null,
      pluginProblem: null,
      passDecisions: null,
      enginePrices: null,
    }
    const metrics = noRequests()
    const result = configurationResult({
      configuration,
      run,
      metrics,
      edits: { calls: 0, failed: 0 },
      scriptedTurns: 1,
    })
    expect(result.finished).toBe(false)
  })
})
