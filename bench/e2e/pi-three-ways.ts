/**
 * `npm run bench:pi`: one scripted Pi session run three ways, each in the real pi binary against the mock model:
 * Pi alone (its own auto-compaction on, as Pi ships), Pi with magic-context (Pi's compaction off, as recommended), and
 * `magic-context replay` of the second run's session file. Reports the main requests' prompt tokens, prefix breaks and
 * estimated prompt cost (bench/e2e/request-metrics.ts), Pi's compactions, and how the replay's passes compare with the
 * live ones. Writes bench/results/pi-three-ways.json.
 *
 * The agent reads STEPS files of about FILE_TOKENS tokens each, one per call; with magic-context it drops every
 * finished read but the newest KEEP with ctx_reduce every REDUCE_EVERY steps (a cooperative agent; Pi alone has no
 * such tool and just reads on).
 */
import { execFileSync } from "node:child_process"
import { mkdirSync, writeFileSync } from "node:fs"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"
import { createTokenCounterPool } from "../../src/tokens/tiktoken-counter.js"
import { fixtureText } from "../../test/e2e/harness/fixture-text.js"
import { messageText, startMockModelServer, type ChatRequest, type MockReply } from "../../test/e2e/harness/mock-model-server.js"
import { REPO_ROOT } from "../../test/e2e/harness/opencode-harness.js"
import { createPiSandbox } from "../../test/e2e/harness/pi-harness.js"
import { openStoreReadOnly } from "../../test/e2e/harness/store-reader.js"
import { requestElements } from "./prefix-share.js"
import { createElementTokenCounter } from "./prompt-tokens.js"
import { measureRequests, type MeasuredRequest, type RequestMetrics } from "./request-metrics.js"

const STEPS = Number(process.env["PI_BENCH_STEPS"] ?? 24)
const FILE_TOKENS = 1_500
const KEEP = 3
const REDUCE_EVERY = 6
const CONTEXT_WINDOW = 32_000
const MAX_TOKENS = 4_096
const RESULTS = join(dirname(fileURLToPath(import.meta.url)), "..", "results", "pi-three-ways.json")

const counter = createTokenCounterPool().counterFor("o200k_base")
const elements = createElementTokenCounter(counter)

type Run = { label: string; metrics: RequestMetrics; compactions: number; refused: number; requests: number; sessionFile: string | null; databaseFile: string; cleanup(): void }

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

function script(withTools: boolean): (request: ChatRequest) => MockReply {
  const reducedAt = new Set<number>()
  return (request) => {
    const promptTokens = promptTokensOf(request)
    // A real provider refuses a prompt over the window; Pi then compacts and retries.
    if (promptTokens > CONTEXT_WINDOW) return { kind: "overflow", contextWindow: CONTEXT_WINDOW, promptTokens }
    if (isCompaction(request)) return { kind: "text", text: "## Goal\nRead the files.\n## Progress\nRead the earlier files.", promptTokens }
    const step = nextStep(request)
    const tags = liveReadTags(request)
    if (withTools && step > 1 && (step - 1) % REDUCE_EVERY === 0 && !reducedAt.has(step) && tags.length > KEEP) {
      reducedAt.add(step)
      return { kind: "tool", name: "ctx_reduce", args: { drop: tags.slice(0, -KEEP).join(",") }, promptTokens }
    }
    if (step > STEPS) return { kind: "text", text: "THREE-WAYS-DONE", promptTokens }
    return { kind: "tool", name: "read", args: { path: `s${String(step).padStart(2, "0")}.txt` }, promptTokens }
  }
}

async function runPi(label: string, extension: boolean): Promise<Run> {
  const files: Record<string, string> = {}
  for (let step = 1; step <= STEPS; step += 1) files[`s${String(step).padStart(2, "0")}.txt`] = fixtureText(`S${step}`, FILE_TOKENS)
  const mock = await startMockModelServer(script(extension))
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
    return { label, metrics, compactions: side.length, refused, requests: mock.requests.length, sessionFile, databaseFile: sandbox.databaseFile, cleanup: () => sandbox.cleanup() }
  } finally {
    await mock.close()
  }
}

/**
 * What one pass decided and rendered, as both stores record it: the decision, the drops that landed, the prompt's
 * tokens (our estimate, before calibration), where it diverged from the previous prompt, and the hash of the serialized
 * prompt an execute pass starts its epoch with.
 */
type PassFacts = { decision: string; dropped: number[]; tokens: number; fixed: number; firstDivergence: number | null; renderedHash: string | null }
type PassRow = { decision: string; first_divergence: number | null; rendered_hash: string | null; detail_json: string }

function passFacts(databaseFile: string): PassFacts[] {
  const db = openStoreReadOnly(databaseFile)
  try {
    const rows = db.prepare("SELECT decision, first_divergence, rendered_hash, detail_json FROM passes ORDER BY session_id, seq").all() as PassRow[]
    return rows.map((row) => {
      const detail = JSON.parse(row.detail_json) as { dropped: number[]; breakdown: { total: number; fixed: number } }
      return { decision: row.decision, dropped: detail.dropped, tokens: detail.breakdown.total, fixed: detail.breakdown.fixed, firstDivergence: row.first_divergence, renderedHash: row.rendered_hash }
    })
  } finally {
    db.close()
  }
}

/** Replays the session file into its own store, with the live run's fixed prompt size and its usage reports. */
function replayStore(sessionFile: string, fixedTokens: number, databaseFile: string): void {
  const args = ["replay", sessionFile, "--window", String(CONTEXT_WINDOW - MAX_TOKENS), "--fixed-tokens", String(fixedTokens), "--calibrate", "--json", "--db", databaseFile]
  execFileSync(process.execPath, [join(REPO_ROOT, "dist", "cli", "bin.js"), ...args], { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] })
}

const alone = await runPi("pi alone", false)
const withContext = await runPi("pi + magic-context", true)
const live = passFacts(withContext.databaseFile)
const replayDatabase = join(dirname(withContext.databaseFile), "replay.db")
if (withContext.sessionFile) replayStore(withContext.sessionFile, live[0]?.fixed ?? 0, replayDatabase)
const replayed = withContext.sessionFile ? passFacts(replayDatabase) : []
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
