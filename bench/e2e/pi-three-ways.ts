/**
 * `npm run bench:pi`: one scripted Pi session run three ways, each in the real pi binary against the mock model:
 * Pi alone (its own auto-compaction on, as Pi ships), Pi with magic-context (Pi's compaction off, as recommended), and
 * `magic-context replay` of the second run's session file. Reports the main requests' prompt tokens, prefix breaks and
 * estimated prompt cost (bench/e2e/request-metrics.ts), Pi's compactions, and how the replay's passes compare with the
 * live ones. Writes bench/results/pi-three-ways.json.
 *
 * The agent reads STEPS files of about FILE_TOKENS tokens each, one per call; with magic-context it drops every
 * finished read but the newest KEEP with ctx_reduce every REDUCE_EVERY steps (a cooperative agent; Pi alone has no
 * such tool and just reads on). By default the ctx_reduce call rides along with that step's read in the same
 * response, as the guidance asks (no call once every file is read: the answer is text); BENCH_REDUCE=alone makes it
 * a response of its own before the read, and writes pi-three-ways-reduce-alone.json.
 */
import { mkdirSync, writeFileSync } from "node:fs"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"
import { createTokenCounterPool } from "../../src/tokens/tiktoken-counter.js"
import { fixtureText } from "../../test/e2e/harness/fixture-text.js"
import { messageText, startMockModelServer, type ChatRequest, type MockReply } from "../../test/e2e/harness/mock-model-server.js"
import { createPiSandbox } from "../../test/e2e/harness/pi-harness.js"
import { readPassFacts, replayLikeLive } from "../../test/e2e/harness/pass-facts.js"
import { requestElements } from "./prefix-share.js"
import { createElementTokenCounter } from "./prompt-tokens.js"
import { REDUCE_STYLE_VARIABLE, reduceStyleOf, reduceStyleSuffix, type ReduceStyle } from "./reduce-style.js"
import { measureRequests, type MeasuredRequest, type RequestMetrics } from "./request-metrics.js"

const STEPS = Number(process.env["PI_BENCH_STEPS"] ?? 24)
const FILE_TOKENS = 1_500
const KEEP = 3
const REDUCE_EVERY = 6
const CONTEXT_WINDOW = 32_000
const MAX_TOKENS = 4_096
const REDUCE_STYLE = reduceStyleOf(process.env[REDUCE_STYLE_VARIABLE])
const RESULTS = join(dirname(fileURLToPath(import.meta.url)), "..", "results", `pi-three-ways${reduceStyleSuffix(REDUCE_STYLE)}.json`)

const counter = createTokenCounterPool().counterFor("o200k_base")
const elements = createElementTokenCounter(counter)

type Run = {
  label: string
  metrics: RequestMetrics
  compactions: number
  refused: number
  requests: number
  sessionFile: string | null
  databaseFile: string
  project: string
  env: Record<string, string>
  cleanup(): void
}

const promptTokensOf = (request: ChatRequest): number => Math.round(JSON.stringify(request.messages).length / 4)

const isCompaction = (request: ChatRequest): boolean =>
  request.messages.some((message) => message.role === "system" && messageText(message).includes("context summarization assistant"))

/** The step a request asks for: one past the newest file read it shows (read calls name `sNN.txt`). */
function nextStep(request: ChatRequest): number {
  let newest = 0
  for (const message of request.messages) {
    for (const call of message.tool_calls ?? []) {
      const found = /s(\d+)\.txt/.exec(call.function.arguments)
      if (found) newest = Math.max(newest, Number(found[1]))
    }
  }
  return newest + 1
}

/** The tags of finished reads still in the prompt, oldest first (their results start with `§N§ `). */
function liveReadTags(request: ChatRequest): number[] {
  return request.messages.flatMap((message) => {
    if (message.role !== "tool") return []
    const found = /^§(\d+)§ /.exec(messageText(message))
    return found && messageText(message).includes("-BEGIN") ? [Number(found[1])] : []
  })
}

function script(withTools: boolean, style: ReduceStyle): (request: ChatRequest) => MockReply {
  const reducedAt = new Set<number>()
  return (request) => {
    const promptTokens = promptTokensOf(request)
    // A real provider refuses a prompt over the window; Pi then compacts and retries.
    if (promptTokens > CONTEXT_WINDOW) return { kind: "overflow", contextWindow: CONTEXT_WINDOW, promptTokens }
    if (isCompaction(request)) return { kind: "text", text: "## Goal\nRead the files.\n## Progress\nRead the earlier files.", promptTokens }
    const step = nextStep(request)
    const tags = liveReadTags(request)
    const read = { name: "read", args: { path: `s${String(step).padStart(2, "0")}.txt` } }
    const reduceDue = withTools && step > 1 && (step - 1) % REDUCE_EVERY === 0 && !reducedAt.has(step) && tags.length > KEEP
    // Batched, the drop needs a read to ride along with: after the last file the answer is text and no call is made.
    if (reduceDue && (style === "alone" || step <= STEPS)) {
      reducedAt.add(step)
      const reduce = { name: "ctx_reduce", args: { drop: tags.slice(0, -KEEP).join(",") } }
      if (style === "alone") return { kind: "tool", ...reduce, promptTokens }
      return { kind: "tools", calls: [reduce, read], promptTokens }
    }
    if (step > STEPS) return { kind: "text", text: "THREE-WAYS-DONE", promptTokens }
    return { kind: "tool", ...read, promptTokens }
  }
}

async function runPi(label: string, extension: boolean): Promise<Run> {
  const files: Record<string, string> = {}
  for (let step = 1; step <= STEPS; step += 1) files[`s${String(step).padStart(2, "0")}.txt`] = fixtureText(`S${step}`, FILE_TOKENS)
  const mock = await startMockModelServer(script(extension, REDUCE_STYLE))
  const sandbox = createPiSandbox({ mockUrl: mock.url, files, contextWindow: CONTEXT_WINDOW, maxTokens: MAX_TOKENS, piCompaction: !extension })
  try {
    const result = await sandbox.run("Read s01.txt to the last file, one at a time.", { extension, timeoutMs: 600_000 })
    if (result.exitCode !== 0) throw new Error(`${label}: pi exited ${result.exitCode}: ${result.stderr.slice(-2000)}`)
    const measured = (request: { n: number; body: ChatRequest }): MeasuredRequest => {
      const parts = requestElements(request.body)
      return { n: request.n, turn: request.n, elements: parts, elementTokens: elements.count(parts) }
    }
    // A refused request cost nothing but the retry it forced; the metrics count the answered ones.
    const answered = mock.requests.filter((request) => promptTokensOf(request.body) <= CONTEXT_WINDOW)
    const main = answered.filter((request) => !isCompaction(request.body))
    const side = answered.filter((request) => isCompaction(request.body))
    const metrics = measureRequests({
      requests: main.map(measured),
      sideRequests: side.map(measured),
      usableWindow: CONTEXT_WINDOW - MAX_TOKENS,
      contextWindow: CONTEXT_WINDOW,
      countText: (text) => counter.count(text),
    })
    const sessionFile = extension ? sandbox.sessionFile() : null
    const refused = mock.requests.length - answered.length
    return { label, metrics, compactions: side.length, refused, requests: mock.requests.length, sessionFile, databaseFile: sandbox.databaseFile, project: sandbox.project, env: sandbox.env, cleanup: () => sandbox.cleanup() }
  } finally {
    await mock.close()
  }
}

const alone = await runPi("pi alone", false)
const withContext = await runPi("pi + magic-context", true)
const liveRun = readPassFacts(withContext.databaseFile)
const live = liveRun.passes
const replayDatabase = join(dirname(withContext.databaseFile), "replay.db")
if (withContext.sessionFile) replayLikeLive({ sessionFile: withContext.sessionFile, live: liveRun, databaseFile: replayDatabase, cwd: withContext.project, env: withContext.env })
const replayed = withContext.sessionFile ? readPassFacts(replayDatabase).passes : []
const differing = live.flatMap((pass, index) => (JSON.stringify(pass) === JSON.stringify(replayed[index]) ? [] : [{ pass: index + 1, live: pass, replay: replayed[index] ?? null }]))

const summary = (run: Run) => ({
  label: run.label,
  mainRequests: run.metrics.mainRequests,
  compactions: run.compactions,
  refusedAsOverflow: run.refused,
  promptTokensTotal: run.metrics.promptTokensTotal,
  promptTokensMax: run.metrics.promptTokensMax,
  prefixBreaks: run.metrics.prefixBreaks,
  sessionCost: run.metrics.sessionCost,
  overContextWindow: run.metrics.overContextWindow,
})
const report = {
  steps: STEPS,
  reduceStyle: REDUCE_STYLE,
  contextWindow: CONTEXT_WINDOW,
  runs: [summary(alone), summary(withContext)],
  replay: {
    livePasses: live.length,
    replayPasses: replayed.length,
    liveExecutes: live.filter((pass) => pass.decision === "execute").length,
    replayExecutes: replayed.filter((pass) => pass.decision === "execute").length,
    /** Passes whose decision, drops, tokens, divergence point or execute-prompt hash differ (none: the same prompts). */
    differing,
  },
}
alone.cleanup()
withContext.cleanup()
mkdirSync(dirname(RESULTS), { recursive: true })
writeFileSync(RESULTS, `${JSON.stringify(report, null, 2)}\n`)
console.log(JSON.stringify(report, null, 2))
