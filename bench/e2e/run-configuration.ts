import { startMockModelServer, type ChatRequest } from "../../test/e2e/harness/mock-model-server.js"
import { createOpenCodeSandbox, type OpenCodeSandbox } from "../../test/e2e/harness/opencode-harness.js"
import { keepRequests } from "../../test/e2e/harness/prompt-inspection.js"
import type { BenchConfiguration } from "./configurations.js"
import { readEnginePrices, type EnginePrices } from "./engine-prices.js"
import { pinModificationTimes } from "./pin-modification-times.js"
import { pluginPreflight } from "./plugin-preflight.js"
import type { ElementTokenCounter } from "./prompt-tokens.js"
import { readPassDecisions } from "./read-pass-decisions.js"
import type { BenchScenario } from "./scenarios.js"
import { scratchRepositoryFiles } from "./scratch-repository.js"
import { createSessionModel, type AnsweredRequest } from "./session-model.js"
import type { ScriptedTurn } from "./session-script.js"

/** One `opencode run` of the session. */
export type TurnRun = {
  exitCode: number | null
  durationMs: number
  /** The turn's final scripted text reached OpenCode's output. */
  finalTextShown: boolean
  /** Main requests the turn made, and how many of its scripted steps that covers. */
  mainRequests: number
  scriptedSteps: number
  /** The last lines OpenCode printed, when the turn failed. */
  failure: string | null
}

/** Everything one configuration's run produced, before measuring. */
export type ConfigurationRun = {
  turns: TurnRun[]
  requests: { answered: AnsweredRequest; body: ChatRequest }[]
  pluginLoaded: boolean | null
  /** Why the plugin did not load, as far as the run shows, or null. */
  pluginProblem: string | null
  /** magic-context's transform-pass decisions in order, read from its store; null for the other configurations. */
  passDecisions: string[] | null
  /** The prices magic-context's passes billed under (from its store); null for the other configurations. */
  enginePrices: EnginePrices | null
}

const LOG_ARGS = ["--print-logs", "--log-level", "INFO"]
const TURN_TIMEOUT_MS = 240_000

/**
 * Runs the scenario's scripted session in a fresh sandbox: the scratch repository as a git project, the mock model
 * with the scenario's window, and one `opencode run` per user turn (`--continue` after the first). Stops after the
 * first turn that fails.
 */
export async function runConfiguration(options: {
  configuration: BenchConfiguration
  scenario: BenchScenario
  tokens: ElementTokenCounter
}): Promise<ConfigurationRun> {
  const { configuration, scenario } = options
  const turns = scenario.turns
  const model = createSessionModel({
    turns,
    tokens: options.tokens,
    cooperative: configuration.cooperative,
    reduceStyle: configuration.reduceStyle,
  })
  const mock = await startMockModelServer(model.script)
  const repository = scratchRepositoryFiles()
  let sandbox: OpenCodeSandbox
  try {
    sandbox = createOpenCodeSandbox({
      mockUrl: mock.url,
      files: { ...repository, ...configuration.files },
      contextLimit: scenario.window.context,
      outputLimit: scenario.window.output,
      pluginEntry: configuration.pluginEntry,
      config: { compaction: configuration.compaction },
    })
  } catch (error) {
    await mock.close()
    throw error
  }
  pinModificationTimes({ directory: sandbox.project, paths: Object.keys(repository) })
  const turnRuns: TurnRun[] = []
  let passDecisions: string[] | null = null
  let enginePrices: EnginePrices | null = null
  try {
    for (const [index, turn] of turns.entries()) {
      model.startTurn(index)
      const args = ["run", ...(index > 0 ? ["--continue"] : []), ...LOG_ARGS, ...turn.prompt]
      const result = await sandbox.run(args, { timeoutMs: TURN_TIMEOUT_MS })
      const mainRequests = mainCount(model.answered(), index)
      const finalTextShown = result.stdout.includes(finalMarker(turn))
      const ok = result.exitCode === 0 && finalTextShown && mainRequests >= turn.steps.length
      turnRuns.push({
        exitCode: result.exitCode,
        durationMs: result.durationMs,
        finalTextShown,
        mainRequests,
        scriptedSteps: turn.steps.length,
        failure: ok ? null : `${result.stdout.slice(-800)}\n${result.stderr.slice(-1500)}`,
      })
      if (!ok) break
    }
    passDecisions = readPassDecisions(sandbox.databaseFile)
    enginePrices = readEnginePrices(sandbox.databaseFile)
  } finally {
    keepRequests(sandbox.root, mock)
    await mock.close()
    sandbox.cleanup()
  }
  const bodies = new Map(mock.requests.map((request) => [request.n, request.body]))
  const requests = model.answered().map((answered) => ({
    answered,
    body: bodies.get(answered.n) ?? { model: "", messages: [] },
  }))
  const loaded = pluginLoaded(configuration, requests)
  return {
    turns: turnRuns,
    requests,
    pluginLoaded: loaded,
    pluginProblem: loaded === false ? pluginProblem(configuration) : null,
    passDecisions,
    enginePrices,
  }
}

/** The first word of a turn's final text (e.g. `SURVEY-DONE.`), which `opencode run` prints when the turn ends. */
export function finalMarker(turn: ScriptedTurn): string {
  const last = turn.steps[turn.steps.length - 1]
  return last?.kind === "text" ? (last.text.split(" ")[0] ?? "") : ""
}

function mainCount(answered: readonly AnsweredRequest[], turn: number): number {
  return answered.filter((request) => request.kind === "main" && request.turn === turn).length
}

function pluginLoaded(
  configuration: BenchConfiguration,
  requests: readonly { answered: AnsweredRequest; body: ChatRequest }[],
): boolean | null {
  if (configuration.pluginTool === null) return null
  return requests.some(
    (request) =>
      request.answered.kind === "main" &&
      (request.body.tools ?? []).some((tool) => tool.function.name === configuration.pluginTool),
  )
}

/** OpenCode skips a plugin that fails to load and carries on; importing it the same way says why. */
function pluginProblem(configuration: BenchConfiguration): string {
  const entry = configuration.pluginEntry ?? ""
  const problem = pluginPreflight(entry)
  if (problem) return `${entry} does not load in OpenCode's runtime: ${problem}`
  return (
    `the ${configuration.pluginTool} tool never appeared in a main request, although ${entry} imports cleanly in ` +
    "OpenCode's runtime (the plugin may have failed when called, or declined to register the tool)"
  )
}
