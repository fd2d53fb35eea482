/**
 * `npm run bench:e2e`: one scripted session in the real OpenCode: OpenCode alone, with magic-context (dist/) and an
 * agent that never calls its tools, the same with a cooperative agent that answers each reminder with ctx_reduce,
 * and with the peer plugin DCP (@tarquinen/opencode-dcp from node_modules), in two scenarios: a 32k window with the
 * script once and a 200k window with the script twice. Each magic-context configuration runs once per price list
 * (anthropic-5m, anthropic-1h, openai), its magic-context.jsonc naming the list for the mock model so the engine
 * decides under the list that run is priced with; OpenCode alone and DCP run once and are priced under every list.
 * A deterministic mock model drives real tool calls over a scratch git repository, and the report is computed from
 * the requests the mock receives: prompt tokens, the cache-reusable prefix, prefix breaks, prompt cost, OpenCode's
 * compaction requests and wall time. It reports and never fails on the numbers; it exits non-zero only when it
 * cannot run. Writes bench/results/bench-e2e.json and bench/results/bench-e2e.md (the cost under each list, then
 * one table per scenario) and prints them. Every combination, 16 runs, takes about half an hour on 2 cores.
 *
 *   npm run bench:e2e                                  build, then every configuration in both scenarios
 *   BENCH_E2E_ONLY=opencode,dcp npm run bench:e2e      a subset of the configurations (opencode, magic-context,
 *                                                      magic-context-cooperative, dcp)
 *   BENCH_E2E_SCENARIOS=32k npm run bench:e2e          a subset of the scenarios (32k, 200k)
 *   BENCH_PRICE_LISTS=openai npm run bench:e2e         magic-context under a subset of the price lists
 *                                                      (anthropic-5m, anthropic-1h, openai)
 *   BENCH_LASTING_LANDING=1 npm run bench:e2e          magic-context with `lasting_landing` on
 *   MAGIC_CONTEXT_KEEP_E2E=1 npm run bench:e2e         keep the sandboxes (requests.json in each)
 *   BENCH_REDUCE=alone npm run bench:e2e               the cooperative agent calls ctx_reduce as a response of its
 *                                                      own instead of beside its next tool call (batched, the
 *                                                      default); writes bench-e2e-reduce-alone.json and .md
 */
import { execFileSync } from "node:child_process"
import { mkdirSync, readFileSync, writeFileSync } from "node:fs"
import { availableParallelism } from "node:os"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"
import { REPO_ROOT } from "../../test/e2e/harness/opencode-harness.js"
import { createTokenCounterPool } from "../../src/tokens/tiktoken-counter.js"
import { benchPriceListsOf, PRICE_LISTS_VARIABLE } from "./bench-price-lists.js"
import { configurationResult, unavailableResult, type ConfigurationResult } from "./configuration-result.js"
import { benchConfigurations } from "./configurations.js"
import { countFailedEdits } from "./edit-outcomes.js"
import { markdownReport, type BenchEnvironment, type ScenarioReport } from "./markdown-report.js"
import { requestElements } from "./prefix-share.js"
import { createElementTokenCounter, type ElementTokenCounter } from "./prompt-tokens.js"
import { measureRequests, type MeasuredRequest, type RequestMetrics } from "./request-metrics.js"
import { REDUCE_STYLE_VARIABLE, reduceStyleOf, reduceStyleSuffix } from "./reduce-style.js"
import { runConfiguration, type ConfigurationRun } from "./run-configuration.js"
import { benchScenarios, scenarioFacts, type BenchScenario } from "./scenarios.js"

const RESULTS = join(dirname(fileURLToPath(import.meta.url)), "..", "results")
const TOKEN_COUNTING =
  "o200k_base counts (the project's token counter, src/tokens/) of each request's serialized tool definitions " +
  "plus each serialized message (the sandbox's random directory name counted as one fixed name); the mock " +
  "reports the same count as usage"

const pool = createTokenCounterPool()
const tokens = createElementTokenCounter(pool.counterFor("o200k_base"))
const only = process.env["BENCH_E2E_ONLY"]?.split(",")
const onlyScenarios = process.env["BENCH_E2E_SCENARIOS"]?.split(",")
const reduceStyle = reduceStyleOf(process.env[REDUCE_STYLE_VARIABLE])
const priceLists = benchPriceListsOf(process.env[PRICE_LISTS_VARIABLE])
const configurations = benchConfigurations(reduceStyle, priceLists).filter((configuration) => !only || only.includes(configuration.id))
const scenarios = benchScenarios().filter((scenario) => !onlyScenarios || onlyScenarios.includes(scenario.id))

const reports: ScenarioReport[] = []
for (const scenario of scenarios) {
  const results: ConfigurationResult[] = []
  for (const configuration of configurations) {
    const label = `${scenario.id} ${configuration.title}`
    if (configuration.unavailable) {
      console.log(`${label}: not run: ${configuration.unavailable}`)
      results.push(unavailableResult(configuration, configuration.unavailable))
      continue
    }
    console.log(`${label}: running ${scenario.turns.length} turns…`)
    const run = await runConfiguration({ configuration, scenario, tokens })
    const main = run.requests.filter((request) => request.answered.kind === "main")
    const result = configurationResult({
      configuration,
      run,
      metrics: measure(run.requests, tokens, scenario),
      edits: countFailedEdits(main.map((request) => request.body)),
      scriptedTurns: scenario.turns.length,
    })
    results.push(result)
    console.log(
      `${label}: ${result.finished ? "finished" : "UNFINISHED"}, ${result.requestCounts.main} main calls, ` +
        `${result.requestCounts.compaction} compactions, ${(result.wallTime.totalMs / 1000).toFixed(1)} s` +
        (result.pluginLoaded === false ? `; plugin not loaded: ${result.pluginProblem}` : ""),
    )
  }
  reports.push({ scenario: scenarioFacts(scenario), results })
}
pool.dispose()

const environment: BenchEnvironment = {
  date: new Date().toISOString().slice(0, 10),
  cores: availableParallelism(),
  node: process.versions.node,
  opencode: installedVersion("opencode-ai"),
  source: sourceRevision(),
  tokenCounting: TOKEN_COUNTING,
}
const markdown = markdownReport({ environment, scenarios: reports })
const json = { environment, scenarios: reports.map(({ scenario, results }) => ({ ...scenario, results })) }
mkdirSync(RESULTS, { recursive: true })
const results = `bench-e2e${reduceStyleSuffix(reduceStyle)}`
writeFileSync(join(RESULTS, `${results}.json`), `${JSON.stringify(json, null, 2)}\n`)
writeFileSync(join(RESULTS, `${results}.md`), markdown)
console.log(`\n${markdown}`)
console.log(`Wrote ${join(RESULTS, `${results}.json`)} and ${results}.md`)

/** Measures the main requests and prices the side requests (title, compaction, historian) against them. */
function measure(
  requests: ConfigurationRun["requests"],
  counter: ElementTokenCounter,
  scenario: BenchScenario,
): RequestMetrics {
  const measured = (kind: "main" | "side"): MeasuredRequest[] =>
    requests
      .filter((request) => (request.answered.kind === "main") === (kind === "main"))
      .map((request) => {
        const elements = requestElements(request.body)
        return { n: request.answered.n, turn: request.answered.turn, elements, elementTokens: counter.count(elements) }
      })
  return measureRequests({
    requests: measured("main"),
    sideRequests: measured("side"),
    usableWindow: scenario.usableWindow,
    contextWindow: scenario.window.context,
    countText: (text) => counter.count([text])[0] ?? 0,
  })
}

/** The checkout's commit, marked when src/ differs from it (dist/ is built from the working tree). */
function sourceRevision(): string {
  const git = (...args: string[]): string => execFileSync("git", args, { cwd: REPO_ROOT, encoding: "utf8" }).trim()
  try {
    const commit = git("rev-parse", "--short", "HEAD")
    return git("status", "--porcelain", "--", "src") === "" ? commit : `${commit} with uncommitted changes in src/`
  } catch {
    return "an unknown revision (git unavailable)"
  }
}

function installedVersion(name: string): string {
  const file = join(REPO_ROOT, "node_modules", name, "package.json")
  return (JSON.parse(readFileSync(file, "utf8")) as { version: string }).version
}
