/**
 * `npm run bench:pi`: one scripted Pi session in the real pi binary (Pi 1.x; BENCH_PI_HOST=0.73 for Pi 0.73)
 * against the mock model, run as Pi alone (its own auto-compaction on, as Pi ships) and as Pi with magic-context
 * (Pi's compaction off, as recommended) with a passive agent (never calls ctx_reduce) and a cooperative one, each under every price list: the run's magic-context.jsonc
 * names the list for the mock model, so the engine decides under the list the run is priced with. Pi alone does not
 * depend on the list and is priced under each. The session file of every magic-context run under the openai list is
 * replayed with `magic-context replay --window` in the run's project (its config names the list, so the replay decides
 * under the live run's prices) and its passes compared with the live ones. Two scenarios
 * (bench/e2e/pi-scenarios.ts): a 32k window with 24 reads of ~1,500 tokens, and a 200k window with 140 reads of the
 * same size in user turns of 20 reads (magic-context refuses a fourth ctx_reduce call in one turn), long enough for
 * Pi alone to compact. Reports per window × agent × list the whole-session prompt cost
 * against Pi alone, prefix breaks and Pi's compactions (bench/e2e/cost-table.ts), and each run's prompt tokens per
 * call. Writes bench/results/pi-three-ways.json and .md (pi-three-ways-pi-0.73.* for Pi 0.73). All 14 runs take a
 * few minutes on 2 cores.
 *
 * The cooperative agent drops every finished read but the newest KEEP with ctx_reduce every REDUCE_EVERY steps
 * (bench/e2e/pi-script.ts). By default the call rides along with that step's read in the same response, as the
 * guidance asks; BENCH_REDUCE=alone makes it a response of its own, and writes pi-three-ways-reduce-alone.json.
 *
 *   BENCH_PI_HOST=0.73            Pi 0.73 instead of Pi 1.x (bench/e2e/pi-host.ts)
 *   BENCH_PI_SCENARIOS=32k        a subset of the scenarios (32k, 200k)
 *   BENCH_PI_AGENTS=cooperative   a subset of the agents with magic-context (passive, cooperative)
 *   BENCH_PRICE_LISTS=openai      a subset of the price lists (anthropic-5m, anthropic-1h, openai)
 *   BENCH_LASTING_LANDING=1       magic-context with `lasting_landing` on (deeper landings under a write premium)
 *   PI_BENCH_STEPS=12             the 32k scenario's number of reads
 *   PI_BENCH_200K_READS=60x4000   the 200k scenario's reads: 60 of ~4,000 tokens
 */
import { mkdirSync, writeFileSync } from "node:fs"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"
import { createTokenCounterPool } from "../../src/tokens/tiktoken-counter.js"
import { fixtureText } from "../../test/e2e/harness/fixture-text.js"
import { startMockModelServer } from "../../test/e2e/harness/mock-model-server.js"
import { readPassFacts, replayLikeLive } from "../../test/e2e/harness/pass-facts.js"
import { createPiSandbox } from "../../test/e2e/harness/pi-harness.js"
import { benchPriceListsOf, PRICE_LISTS_VARIABLE, priceListConfig, type BenchPriceList } from "./bench-price-lists.js"
import { costTable, type CostRow, type CostSide } from "./cost-table.js"
import { readEnginePrices, type EnginePrices } from "./engine-prices.js"
import { isCompaction, piScript, promptTokensOf, turnEnds, turnPrompt } from "./pi-script.js"
import { piHostOf, piHostSuffix, PI_HOST_VARIABLE } from "./pi-host.js"
import { piScenarios, PI_200K_READS_VARIABLE, PI_SCENARIOS_VARIABLE, stepFile, type PiScenario } from "./pi-scenarios.js"
import { requestElements } from "./prefix-share.js"
import { createElementTokenCounter } from "./prompt-tokens.js"
import { REDUCE_STYLE_VARIABLE, reduceStyleOf, reduceStyleSuffix } from "./reduce-style.js"
import { measureRequests, type MeasuredRequest, type RequestMetrics } from "./request-metrics.js"

const AGENTS = ["passive", "cooperative"] as const
type Agent = (typeof AGENTS)[number]

const HOST = piHostOf(process.env[PI_HOST_VARIABLE])
const REDUCE_STYLE = reduceStyleOf(process.env[REDUCE_STYLE_VARIABLE])
const SCENARIOS = piScenarios({
  only: process.env[PI_SCENARIOS_VARIABLE],
  steps32k: process.env["PI_BENCH_STEPS"],
  reads200k: process.env[PI_200K_READS_VARIABLE],
})
const LISTS = benchPriceListsOf(process.env[PRICE_LISTS_VARIABLE])
const agentsNamed = (process.env["BENCH_PI_AGENTS"] ?? "").split(",").filter((agent) => agent !== "")
const RUN_AGENTS = AGENTS.filter((agent) => agentsNamed.length === 0 || agentsNamed.includes(agent))
const RESULTS = join(dirname(fileURLToPath(import.meta.url)), "..", "results", `pi-three-ways${piHostSuffix(HOST)}${reduceStyleSuffix(REDUCE_STYLE)}`)

const counter = createTokenCounterPool().counterFor("o200k_base")
const elements = createElementTokenCounter(counter)

type Run = {
  label: string
  metrics: RequestMetrics
  compactions: number
  refused: number
  requests: number
  enginePrices: EnginePrices | null
  replay: ReturnType<typeof replayCheck> | null
}

async function runPi(scenario: PiScenario, plugin: { agent: Agent; list: BenchPriceList } | null): Promise<Run> {
  const label = `${scenario.id} ${plugin ? `pi + magic-context, ${plugin.agent}, ${plugin.list}` : "pi alone"}`
  console.log(`${label}: running ${scenario.steps} reads…`)
  const files: Record<string, string> = {}
  for (let step = 1; step <= scenario.steps; step += 1) files[stepFile(step)] = fixtureText(`S${step}`, scenario.fileTokens)
  if (plugin) files["magic-context.jsonc"] = priceListConfig(plugin.list)
  const agent = piScript({ scenario, cooperative: plugin?.agent === "cooperative", style: REDUCE_STYLE })
  const mock = await startMockModelServer(agent.script)
  const extension = plugin !== null
  const sandbox = createPiSandbox({ mockUrl: mock.url, files, contextWindow: scenario.contextWindow, maxTokens: scenario.maxTokens, piCompaction: !extension, host: HOST })
  try {
    for (const [index, lastRead] of turnEnds(scenario).entries()) {
      agent.startTurn(lastRead)
      const result = await sandbox.run(turnPrompt(lastRead, scenario), { extension, continueSession: index > 0, timeoutMs: 1_200_000 })
      if (result.exitCode !== 0) throw new Error(`${label}: pi exited ${result.exitCode} in turn ${index + 1}: ${result.stderr.slice(-2000)}`)
    }
    const measured = (request: { n: number; body: Parameters<typeof requestElements>[0] }): MeasuredRequest => {
      const parts = requestElements(request.body)
      return { n: request.n, turn: request.n, elements: parts, elementTokens: elements.count(parts) }
    }
    // A refused request cost nothing but the retry it forced; the metrics count the answered ones.
    const answered = mock.requests.filter((request) => promptTokensOf(request.body) <= scenario.contextWindow)
    const main = answered.filter((request) => !isCompaction(request.body))
    const side = answered.filter((request) => isCompaction(request.body))
    const metrics = measureRequests({
      requests: main.map(measured),
      sideRequests: side.map(measured),
      usableWindow: scenario.contextWindow - scenario.maxTokens,
      contextWindow: scenario.contextWindow,
      countText: (text) => counter.count(text),
    })
    const run: Run = {
      label,
      metrics,
      compactions: side.length,
      refused: mock.requests.length - answered.length,
      requests: mock.requests.length,
      enginePrices: extension ? readEnginePrices(sandbox.databaseFile) : null,
      replay: plugin?.list === "openai" ? replayCheck(sandbox) : null,
    }
    console.log(`${label}: ${metrics.mainRequests} main requests, ${run.compactions} compactions, ${metrics.prefixBreaks} prefix breaks`)
    return run
  } finally {
    await mock.close()
    sandbox.cleanup()
  }
}

/** Replays the run's session file and compares its passes with the live ones (none differ: the same prompts). */
function replayCheck(sandbox: ReturnType<typeof createPiSandbox>) {
  const liveRun = readPassFacts(sandbox.databaseFile)
  const live = liveRun.passes
  const replayDatabase = join(dirname(sandbox.databaseFile), "replay.db")
  replayLikeLive({ sessionFile: sandbox.sessionFile(), live: liveRun, databaseFile: replayDatabase, cwd: sandbox.project, env: sandbox.env })
  const replayed = readPassFacts(replayDatabase).passes
  const differing = live.flatMap((pass, index) => (JSON.stringify(pass) === JSON.stringify(replayed[index]) ? [] : [{ pass: index + 1, live: pass, replay: replayed[index] ?? null }]))
  return {
    livePasses: live.length,
    replayPasses: replayed.length,
    liveExecutes: live.filter((pass) => pass.decision === "execute").length,
    replayExecutes: replayed.filter((pass) => pass.decision === "execute").length,
    /** Passes whose decision, drops, tokens, divergence point or execute-prompt hash differ. */
    differing,
  }
}

const summary = (run: Run) => ({
  label: run.label,
  mainRequests: run.metrics.mainRequests,
  compactions: run.compactions,
  refusedAsOverflow: run.refused,
  promptTokensTotal: run.metrics.promptTokensTotal,
  promptTokensMax: run.metrics.promptTokensMax,
  prefixBreaks: run.metrics.prefixBreaks,
  prefixBreakAt: run.metrics.prefixBreakAt,
  sessionCost: run.metrics.sessionCost,
  overContextWindow: run.metrics.overContextWindow,
  enginePrices: run.enginePrices,
  replay: run.replay,
  /** Prompt tokens per main request in thousands, `|` before a request that broke the prefix. */
  tokenSeries: run.metrics.rows.map((row) => `${row.prefixBreak ? "|" : ""}${(row.promptTokens / 1000).toFixed(1)}`).join(" "),
})

const side = (run: Run, list: BenchPriceList): CostSide => ({
  cost: run.metrics.sessionCost[list],
  prefixBreaks: run.metrics.prefixBreaks,
  compactions: run.compactions,
})

const scenarios = []
const rows: CostRow[] = []
for (const scenario of SCENARIOS) {
  const alone = await runPi(scenario, null)
  const runs = []
  for (const agent of RUN_AGENTS) {
    for (const list of LISTS) {
      const run = await runPi(scenario, { agent, list })
      runs.push({ agent, list, ...summary(run) })
      rows.push({ window: scenario.id, agent, list, hostAlone: side(alone, list), withPlugin: side(run, list), engine: run.enginePrices })
    }
  }
  scenarios.push({ ...scenario, alone: summary(alone), runs })
}
const table = costTable({ host: "Pi", rows })
const report = { host: HOST.label, reduceStyle: REDUCE_STYLE, priceLists: LISTS, scenarios, table }
mkdirSync(dirname(RESULTS), { recursive: true })
writeFileSync(`${RESULTS}.json`, `${JSON.stringify(report, null, 2)}\n`)
writeFileSync(`${RESULTS}.md`, `${table.join("\n")}\n`)
console.log(`${HOST.label}:`)
console.log(table.join("\n"))
console.log(`Wrote ${RESULTS}.json and .md`)
