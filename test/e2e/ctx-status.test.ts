import { execFile } from "node:child_process"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { createTokenCounterPool } from "../../src/tokens/tiktoken-counter.js"
import { fixtureText } from "./harness/fixture-text.js"
import { conversation } from "./harness/history-inspection.js"
import {
  isTitleRequest,
  messageText,
  startMockModelServer,
  type ChatMessage,
  type ChatRequest,
  type MockModelServer,
  type MockReply,
} from "./harness/mock-model-server.js"
import { createOpenCodeSandbox, REPO_ROOT, type OpenCodeSandbox, type RunResult } from "./harness/opencode-harness.js"
import { keepRequests, prefixTag, systemTexts, toolMessages } from "./harness/prompt-inspection.js"
import { createTurnScript } from "./harness/scripted-turns.js"
import { queryStore } from "./harness/store-reader.js"
import { expectEpisodeShown } from "./harness/episode-shown.js"

type Breakdown = {
  total: number
  fixed: number
  history: number
  conversation: number
  protected: number
  tool: number
  reclaimable: number
  tags: number
}
type Pass = {
  seq: number
  decision: string
  band: string
  usage_tokens: number
  window_tokens: number
  rendered_tokens: number
  first_divergence: number | null
  detail: {
    reason: string
    breakdown: Breakdown
    dropped: number[]
    billed: { uncached: number; cachedRead: number; cacheWrite: number; cost: number; readPrice: number } | null
  }
}
type CliResult = { exitCode: number | null; stdout: string; stderr: string }

const RUN_LOGS = ["--print-logs", "--log-level", "INFO"]
/** Generous: the machine is slow and shared; a run that hangs is killed and fails on its exit code. */
const RUN_TIMEOUT_MS = 240_000
const STATUS_OPEN = "<ctx-status>"
const STATUS_INSTRUCTION =
  "</ctx-status>\nShow the report above to the user exactly as written, in one code block, and add nothing else."
/** A line's "… ago" as format-status prints it (the only time-dependent text in the report). */
const AGO = /(?:\d+s ago|\d+ min ago|\d+\.\d h ago|just now)/g

/** Runs the package's CLI (`dist/cli/bin.js`) as a user would, in `cwd` with `env`. */
function runCli(args: string[], options: { cwd: string; env: Record<string, string> }): Promise<CliResult> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [join(REPO_ROOT, "dist", "cli", "bin.js"), ...args],
      { cwd: options.cwd, env: options.env, timeout: RUN_TIMEOUT_MS },
      (error, stdout, stderr) => {
        const exitCode = error ? (typeof error.code === "number" ? error.code : null) : 0
        resolve({ exitCode, stdout, stderr })
      },
    )
  })
}

function tokens(count: number): string {
  return count.toLocaleString("en-US")
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")
}

/** A breakdown line of the report: the label, the tokens and the share of the prompt, however they are aligned. */
function breakdownLine(label: string, count: number, total: number): unknown {
  const share = Math.round((count / total) * 100)
  return expect.stringMatching(new RegExp(`^  ${escapeRegExp(label)} +${tokens(count)}  ${share}%$`))
}

/** The report text between the markers of a status request's message ("" when the request has none). */
function reportOf(request: ChatRequest): string {
  const message = request.messages.find(
    (candidate) => candidate.role === "user" && messageText(candidate).startsWith(STATUS_OPEN),
  )
  const match = /^<ctx-status>\n([\s\S]*)\n<\/ctx-status>\n/.exec(message ? messageText(message) : "")
  return match?.[1] ?? ""
}

describe("/ctx-status in the real OpenCode", () => {
  // Usable window 64,000 - 4,096 = 59,904 tokens; execute threshold 50% (29,952).
  const CONTEXT = 64_000
  const USABLE = 59_904
  const LOW = 20_000
  const HIGH = 36_000
  const files: Record<string, string> = {
    // A 5,000-token protected window: the newest message, and c.txt's read behind a short one (most of it inside).
    "magic-context.jsonc": '{ "execute_threshold": 50, "protected_tokens": 5000, "historian": { "strategy": "off" } }\n',
    "a.txt": fixtureText("A", 3_000),
    "b.txt": fixtureText("B", 3_000),
    // The large one: the newest read, in the protected window when /ctx-status runs.
    "c.txt": fixtureText("C", 8_000),
  }

  let mock: MockModelServer
  let sandbox: OpenCodeSandbox
  let first: RunResult
  let status: RunResult
  let third: RunResult
  /** `magic-context status --session <id>` right after /ctx-status, before the third run adds a pass. */
  let cli: CliResult
  /** How many requests the mock had received after each run. */
  const requestsAfter = { first: 0, status: 0, third: 0 }

  beforeAll(async () => {
    let project = ""
    const read = (label: string, promptTokens: number): MockReply => ({
      kind: "tool",
      name: "read",
      args: { filePath: join(project, `${label}.txt`) },
      promptTokens,
    })
    /** ctx_reduce on the read whose output starts with `marker`, by the tag the model sees on it. */
    const reduce = (request: ChatRequest, marker: string, promptTokens: number): MockReply => {
      const result = toolMessages(request).find((message) => messageText(message).includes(marker))
      const drop = String(prefixTag(result ? messageText(result) : ""))
      return { kind: "tool", name: "ctx_reduce", args: { drop }, promptTokens }
    }
    const turns = createTurnScript([
      {
        // The status request: the mock echoes the report between the markers, as a model told to would.
        marker: STATUS_OPEN,
        steps: [(request) => ({ kind: "text", text: reportOf(request) || "NO-REPORT-FOUND", promptTokens: 600 })],
      },
      {
        marker: "please read the files",
        steps: [
          () => read("a", LOW),
          () => read("b", LOW),
          (request) => reduce(request, "FILE-A-BEGIN", LOW),
          // Reported over the threshold: the next pass executes the queued drop of a.txt.
          () => read("c", HIGH),
          // Back below it: this drop of b.txt stays queued.
          (request) => reduce(request, "FILE-B-BEGIN", LOW),
          () => ({ kind: "text", text: "FILES-DONE", promptTokens: LOW }),
        ],
      },
      { marker: "what next", steps: [() => ({ kind: "text", text: "THIRD-DONE", promptTokens: LOW })] },
    ])
    mock = await startMockModelServer((request, n) => {
      if (isTitleRequest(request)) return { kind: "text", text: "Status session" }
      return turns(request, n) ?? { kind: "text", text: "UNSCRIPTED-REQUEST" }
    })
    sandbox = createOpenCodeSandbox({ mockUrl: mock.url, contextLimit: CONTEXT, files })
    project = sandbox.project
    const options = { timeoutMs: RUN_TIMEOUT_MS }
    first = await sandbox.run(["run", ...RUN_LOGS, "please", "read", "the", "files"], options)
    requestsAfter.first = mock.requests.length
    status = await sandbox.run(["run", "--continue", ...RUN_LOGS, "--command", "ctx-status"], options)
    requestsAfter.status = mock.requests.length
    const sessions = queryStore<{ id: string }>(sandbox.databaseFile, "SELECT id FROM sessions")
    const sessionId = sessions[0]?.id ?? "no-session-stored"
    cli = await runCli(["status", "--session", sessionId], { cwd: project, env: sandbox.env })
    third = await sandbox.run(["run", "--continue", ...RUN_LOGS, "what", "next"], options)
    requestsAfter.third = mock.requests.length
  }, 4 * RUN_TIMEOUT_MS)

  afterAll(async () => {
    if (sandbox && mock) keepRequests(sandbox.root, mock)
    await mock?.close()
    sandbox?.cleanup()
  })

  /** Facts every test below relies on: the three runs went as scripted, and the store is as they left it. */
  function session() {
    expect(first.exitCode, first.stderr.slice(-3000)).toBe(0)
    expect(first.stdout).toContain("FILES-DONE")
    expect(status.exitCode, status.stderr.slice(-3000)).toBe(0)
    expect(third.exitCode, third.stderr.slice(-3000)).toBe(0)
    expect(third.stdout).toContain("THIRD-DONE")
    const bodies = mock.requests.map((request) => request.body)
    for (const body of bodies) expect(body.messages.map(messageText).join("\n")).not.toContain("UNSCRIPTED-REQUEST")
    const sessions = queryStore<{ id: string }>(sandbox.databaseFile, "SELECT id FROM sessions")
    expect(sessions).toHaveLength(1)
    const sessionId = (sessions[0] as { id: string }).id
    expect(sessionId).toMatch(/^ses_/)
    const passes = queryStore<Omit<Pass, "detail"> & { detail_json: string }>(
      sandbox.databaseFile,
      "SELECT seq, decision, band, usage_tokens, window_tokens, rendered_tokens, first_divergence, detail_json FROM passes ORDER BY seq",
    ).map(({ detail_json, ...row }) => ({ ...row, detail: JSON.parse(detail_json) as Pass["detail"] }))
    const reads = queryStore<{ tag: number; output: string; tokens: number }>(
      sandbox.databaseFile,
      "SELECT t.tag, json_extract(p.content_json, '$.state.output') AS output, p.tokens FROM tags t " +
        "JOIN parts p ON p.session_id = t.session_id AND p.id = t.part_id WHERE t.tool = 'read' ORDER BY t.tag",
    )
    const readTag = (marker: string): number => {
      const row = reads.find((candidate) => candidate.output.includes(marker))
      if (!row) throw new Error(`no read of ${marker}`)
      return row.tag
    }
    expect(queryStore(sandbox.databaseFile, "SELECT hook, message FROM errors")).toEqual([])
    // The command made one model call (the session already has its title), and it carried a report.
    const statusRun = bodies.slice(requestsAfter.first, requestsAfter.status)
    expect(statusRun).toHaveLength(1)
    const statusRequest = statusRun[0] as ChatRequest
    const report = reportOf(statusRequest)
    expect(report).toMatch(/^magic-context status: session /)
    return {
      sessionId,
      passes,
      tagA: readTag("FILE-A-BEGIN"),
      tagB: readTag("FILE-B-BEGIN"),
      statusRequest,
      report,
      firstRun: bodies.slice(0, requestsAfter.first).filter((body) => !isTitleRequest(body)),
      thirdRun: bodies.slice(requestsAfter.status, requestsAfter.third).filter((body) => !isTitleRequest(body)),
    }
  }

  it("sends the model one request carrying only the report, none of the conversation", () => {
    const { statusRequest, report } = session()
    // Besides the system prompt, one message: the report in its markers and the instruction to show it.
    const content = `${STATUS_OPEN}\n${report}\n${STATUS_INSTRUCTION}`
    expect(conversation(statusRequest)).toEqual([{ role: "user", content }])
    const everything = statusRequest.messages.map(messageText).join("\n")
    for (const earlier of ["please read the files", "FILE-A-BEGIN", "FILE-B-BEGIN", "FILE-C-BEGIN", "FILES-DONE"]) {
      expect(everything).not.toContain(earlier)
    }
    expect(everything).not.toContain("Queued 1 drop")
    const replies = statusRequest.messages.filter((message) => message.role === "tool" || message.role === "assistant")
    expect(replies).toEqual([])
    // No pass ran for it: the system prompt carries no ctx_reduce guidance, since there is nothing to reduce.
    expect(systemTexts(statusRequest)).toHaveLength(1)
    expect(systemTexts(statusRequest)[0]).not.toContain("<context-management>")
  })

  it("reports usage, band, threshold, breakdown and bar, drops, historian, pins, compaction and errors", () => {
    const { sessionId, passes, tagA, tagB, report } = session()
    // One pass per main request: six in the first run, one in the third; the status request ran none.
    const decisions = ["replay", "replay", "replay", "replay", "execute", "replay", "replay"]
    expect(passes.map((pass) => pass.decision)).toEqual(decisions)
    const execute = passes[4] as Pass
    const executeBilled = execute.detail.billed ?? { uncached: 0, cachedRead: 0, cacheWrite: 0, cost: Number.NaN, readPrice: Number.NaN }
    // The report sums the passes before it (the last one it names is #6).
    const reported = passes.filter((pass) => pass.seq <= 6)
    const billed = reported.flatMap((pass) => (pass.detail.billed ? [pass.detail.billed] : []))
    const sum = (values: number[]): number => values.reduce((total, value) => total + value, 0)
    const sent = sum(billed.map((b) => b.uncached + b.cachedRead + b.cacheWrite))
    expect(billed).toHaveLength(6)
    const last = passes[5] as Pass
    const breakdown = last.detail.breakdown
    // Usage is the provider's report for the previous request plus what the prompt grew by since.
    const usage = LOW + breakdown.total - execute.detail.breakdown.total
    expect(last.usage_tokens).toBe(usage)
    expect(last.window_tokens).toBe(USABLE)
    expect(execute.usage_tokens).toBeGreaterThanOrEqual(USABLE / 2)
    expect(execute.rendered_tokens).toBeLessThan(execute.usage_tokens)
    expect(execute.detail.dropped).toEqual([tagA])
    // With the historian off there is no compartment history.
    expect(breakdown.history).toBe(0)
    expect(breakdown.fixed + breakdown.conversation + breakdown.protected + breakdown.tool).toBe(breakdown.total)
    // The mock's reported usage and our own count of the prompt differ by more than 5%: the report shows both.
    expect(Math.abs(breakdown.total - usage)).toBeGreaterThan(Math.max(500, usage * 0.05))

    const lines = report.split("\n")
    expect(lines).toEqual([
      `magic-context status: session ${sessionId}`,
      "",
      `Usage: ${tokens(usage)} of 59,904 usable tokens (${((usage / USABLE) * 100).toFixed(1)}%) ` +
        `(our count of the prompt: ${tokens(breakdown.total)}), band below, execute threshold 50%`,
      expect.stringMatching(new RegExp(`^Last pass: #6 replay \\(below-threshold\\), ${AGO.source}$`)),
      "",
      expect.stringMatching(/^\[[FLHCPT.]{60}\]$/),
      "F fixed prompt  L pinned ledger  H compartment history  C settled conversation  P protected recent work  T tool output  . free",
      "",
      breakdownLine("fixed prompt", breakdown.fixed, breakdown.total),
      // No history: no ledger, and no lines per tier under the history.
      breakdownLine("pinned ledger", 0, breakdown.total),
      breakdownLine("compartment history", 0, breakdown.total),
      breakdownLine("settled conversation", breakdown.conversation, breakdown.total),
      breakdownLine("protected recent work", breakdown.protected, breakdown.total),
      breakdownLine("tool output", breakdown.tool, breakdown.total),
      // Nothing is reclaimable: a.txt is dropped, b.txt already queued, c.txt (the newest read) protected.
      "  of it reclaimable              0  (finished tool output outside the protected window)",
      expect.stringMatching(new RegExp(`^  tag prefixes +${tokens(breakdown.tags)}$`)),
      expect.stringMatching(new RegExp(`^  total +${tokens(breakdown.total)}$`)),
      "",
      // The user's message, three reads, two ctx_reduce answers and the final answer (stored and tagged when the turn
      // ended, before any pass sent it); a.txt's read dropped.
      "Tags: 7 (1 dropped)",
      `Queued drops: §${tagB}§ (land at the next execute pass)`,
      "",
      expect.stringMatching(
        new RegExp(
          `^Last execute pass: #5 \\(threshold-work\\), ${AGO.source}: ` +
            `${tokens(execute.usage_tokens)} -> ${tokens(execute.rendered_tokens)} tokens$`,
        ),
      ),
      `  dropped: §${tagA}§`,
      "  tiers changed: none",
      // Where the execute pass changed the prompt, what its request cost and what it has saved at its own call and
      // the one after it, and the session's prompts so far, each as the passes recorded them.
      // Under the price list in force (the one the passes recorded with), and what it saves a call from now on.
      `  prompt changed from byte ${tokens(execute.first_divergence ?? -1)}; its request cost ~${tokens(Math.round(executeBilled.cost))}, ` +
        `saved ~${tokens(Math.round((execute.usage_tokens - execute.rendered_tokens) * executeBilled.readPrice * 2))} so far (2 calls), ` +
        `~${tokens(Math.round((execute.usage_tokens - execute.rendered_tokens) * executeBilled.readPrice))} a call from now on`,
      // The mock's provider is not in the price table: the most conservative list, named, and the cost estimated under it.
      "Price list for mock/mock-model: anthropic-1h (provider not in the price table: the most conservative list, the " +
        "highest write premium): cached read 0.1×, cache write 2× the uncached input price",
      `Prompt cost so far (estimate, in uncached input tokens): ~${tokens(Math.round(sum(billed.map((b) => b.cost))))} over ` +
        `${billed.length} calls; ${Math.round((100 * sum(billed.map((b) => b.cachedRead))) / sent)}% of ${tokens(sent)} prompt tokens read from the cache`,
      expect.stringMatching(
        /^Without magic-context \(estimate, the host sending its whole transcript, no compaction\): ~[\d,]+ over the same calls; magic-context (saves ~[\d,]+|costs ~[\d,]+ more) \(\d+%\)$/,
      ),
      "",
      "Historian (off): 0 compartments, 0 folded into history",
      "Pins: 0 pinned by the agent",
      // The mock model is reached through an OpenAI-compatible provider: no reasoning state the provider checks.
      "Reasoning rule: none for mock/mock-model (from the provider table): no reasoning state the provider checks",
      "OpenCode compaction: auto false, prune false [OpenCode's config as loaded]",
      "",
      "Recent internal errors: none",
      // The report was made in a process of its own (`opencode run --command`), before any pass of it.
      "Held in memory by this process: 0 sessions (a deleted session is let go; its stored rows stay)",
    ])
    expect(breakdown.reclaimable).toBe(0)
    // The passes recorded their requests under the list the report names: a write at 2×, a read at 0.1×.
    expect(billed.every((b) => Math.abs(b.cost - (b.uncached + 0.1 * b.cachedRead + 2 * b.cacheWrite)) < 1e-6)).toBe(true)
    // The host alone sent every call's whole transcript: at least what the plugin sent before its execute pass, read
    // from the cache up to the call before; its estimate lies between all of it read and all of it written.
    const alone = /~([\d,]+) over the same calls/.exec(report)
    const aloneCost = Number(alone?.[1]?.replace(/,/g, ""))
    expect(aloneCost).toBeGreaterThan(0.1 * sent)
    expect(aloneCost).toBeLessThan(2 * 2 * sent)

    // The bar: one cell per 1/60 of the usable window, segments in order, free space last.
    const bar = (lines[5] as string).slice(1, -1)
    expect(bar).toMatch(/^F*L*H*C*P*T*\.*$/)
    const cells = (char: string): number => [...bar].filter((cell) => cell === char).length
    const segments: [string, number][] = [
      ["F", breakdown.fixed],
      ["L", 0],
      ["H", breakdown.history],
      ["C", breakdown.conversation],
      ["P", breakdown.protected],
      ["T", breakdown.tool],
      [".", USABLE - breakdown.total],
    ]
    for (const [char, count] of segments) {
      expect(Math.abs(cells(char) - (count / USABLE) * 60), `${char} cells`).toBeLessThanOrEqual(1)
    }
    expect(cells("F")).toBeGreaterThan(0)
    expect(cells("P")).toBeGreaterThan(0)
    expect(cells("T")).toBeGreaterThan(0)
    expect(cells(".")).toBeGreaterThan(0)
  })

  it("shows the user the report as written, tags included", () => {
    const { report, tagB } = session()
    expect(status.stdout).toContain(report)
    // The reply is not treated as the model copying tags: the queued drop's tag survives.
    expect(status.stdout).toContain(`Queued drops: §${tagB}§`)
  })

  it("keeps the request and its reply out of the next turn: the prompt continues the first run's", () => {
    const { firstRun, thirdRun, sessionId } = session()
    expect(thirdRun).toHaveLength(1)
    const next = thirdRun[0] as ChatRequest
    for (const message of next.messages) {
      const text = messageText(message)
      expect(text).not.toContain(STATUS_OPEN)
      expect(text).not.toContain("magic-context status:")
      expect(text).not.toContain("Show the report above")
    }
    // Byte for byte the first run's last prompt, then its final answer and the new user message.
    const previous = firstRun.at(-1) as ChatRequest
    expect(next.messages.slice(0, previous.messages.length)).toEqual(previous.messages)
    const added = next.messages.slice(previous.messages.length)
    expect(added.map((message) => message.role)).toEqual(["assistant", "user"])
    expect(messageText(added[0] as ChatMessage)).toMatch(/^§\d+§ FILES-DONE$/)
    expect(messageText(added[1] as ChatMessage)).toMatch(/^§\d+§ what next$/)
    // OpenCode itself still holds the exchange: the plugin left it out of the prompt, not out of the session.
    const exported = sandbox.exportSession(sessionId) as { messages: { parts: { type: string; text?: string }[] }[] }
    const texts = exported.messages.flatMap((message) =>
      message.parts.flatMap((part) => (part.type === "text" ? [part.text ?? ""] : [])),
    )
    expect(texts.filter((text) => text.startsWith(STATUS_OPEN))).toHaveLength(1)
    // The reply as stored and shown: the report in a code block, in place of what the model wrote.
    expect(texts.filter((text) => text.startsWith(`\`\`\`\nmagic-context status: session ${sessionId}`))).toHaveLength(1)
  })

  it("magic-context status prints the same report from the same store", () => {
    const { report } = session()
    expect(cli.exitCode, cli.stderr).toBe(0)
    expect(cli.stderr).toBe("")
    // Three kinds of text differ by nature: how long ago the passes ran, where the host's compaction settings were
    // read (the plugin sees OpenCode's loaded config; the CLI reads the config files and names them), and what the
    // host process holds in memory (the CLI is no host process: it prints no such line).
    const normalise = (text: string): string =>
      text
        .trimEnd()
        .replace(AGO, "<ago>")
        .replace(/^(OpenCode compaction: auto \w+, prune \w+) \[.*\]$/m, "$1 [<source>]")
    const heldLine = /\nHeld in memory by this process: [^\n]*$/
    expect(report.trimEnd()).toMatch(heldLine)
    expect(normalise(cli.stdout)).toBe(normalise(report.trimEnd().replace(heldLine, "")))
    const configFile = join(sandbox.project, "opencode.json")
    expect(cli.stdout).toContain(`OpenCode compaction: auto false, prune false [${configFile}; ${configFile}]`)
  })

  it("magic-context status refuses an unknown session with a clear error and exit code 1", async () => {
    session()
    const unknown = await runCli(["status", "--session", "ses_doesnotexist"], {
      cwd: sandbox.project,
      env: sandbox.env,
    })
    expect(unknown.exitCode).toBe(1)
    expect(unknown.stdout).toBe("")
    expect(unknown.stderr).toBe(
      `${sandbox.databaseFile}: no session ses_doesnotexist (magic-context status --list shows the stored ones)\n`,
    )
  })
})

describe("/ctx-status with folded history in the real OpenCode", () => {
  // The canonical historian (the default): settled conversation is cut into compartments and the execute pass after
  // the HIGH report folds them into history. Only the newest message (a 3,000-token read) is protected.
  const CONTEXT = 64_000
  const LOW = 20_000
  const HIGH = 36_000
  const TIERS = ["full", "dense", "compact", "anchor"] as const
  const files: Record<string, string> = {
    "magic-context.jsonc": '{ "execute_threshold": 50, "protected_tokens": 500 }\n',
    "notes.txt": "Deploy notes\nthe deploy key lives at vault path secret/deploy.\n",
    "a.txt": fixtureText("A", 3_000),
    "b.txt": fixtureText("B", 3_000),
    "c.txt": fixtureText("C", 3_000),
  }

  let mock: MockModelServer
  let sandbox: OpenCodeSandbox
  let first: RunResult
  let status: RunResult
  const requestsAfter = { first: 0, status: 0 }

  beforeAll(async () => {
    let project = ""
    const read = (label: string, promptTokens: number): MockReply => ({
      kind: "tool",
      name: "read",
      args: { filePath: join(project, `${label}.txt`) },
      promptTokens,
    })
    const turns = createTurnScript([
      {
        marker: STATUS_OPEN,
        steps: [(request) => ({ kind: "text", text: reportOf(request) || "NO-REPORT-FOUND", promptTokens: 600 })],
      },
      {
        marker: "read the notes and the files",
        steps: [
          () => read("notes", LOW),
          // The agent pins the notes read, by the tag the model sees on its result.
          (request) => ({
            kind: "tool",
            name: "ctx_pin",
            args: { tags: String(prefixTag(messageText(toolMessages(request).at(-1) as ChatMessage))) },
            promptTokens: LOW,
          }),
          () => read("a", LOW),
          () => read("b", LOW),
          // Reported over the threshold: the next pass executes and folds the settled messages into history.
          () => read("c", HIGH),
          () => ({ kind: "text", text: "FOLD-DONE", promptTokens: LOW }),
        ],
      },
    ])
    mock = await startMockModelServer((request, n) => {
      if (isTitleRequest(request)) return { kind: "text", text: "Folded session" }
      return turns(request, n) ?? { kind: "text", text: "UNSCRIPTED-REQUEST" }
    })
    sandbox = createOpenCodeSandbox({ mockUrl: mock.url, contextLimit: CONTEXT, files })
    project = sandbox.project
    const options = { timeoutMs: RUN_TIMEOUT_MS }
    const words = ["Never", "print", "the", "deploy", "key.", "Now", "read", "the", "notes", "and", "the", "files."]
    first = await sandbox.run(["run", ...RUN_LOGS, ...words], options)
    requestsAfter.first = mock.requests.length
    status = await sandbox.run(["run", "--continue", ...RUN_LOGS, "--command", "ctx-status"], options)
    requestsAfter.status = mock.requests.length
  }, 3 * RUN_TIMEOUT_MS)

  afterAll(async () => {
    if (sandbox && mock) keepRequests(sandbox.root, mock)
    await mock?.close()
    sandbox?.cleanup()
  })

  it("splits the history into the pinned ledger and the compartments by tier, as the store has them", () => {
    expect(first.exitCode, first.stderr.slice(-3000)).toBe(0)
    expect(first.stdout).toContain("FOLD-DONE")
    expect(status.exitCode, status.stderr.slice(-3000)).toBe(0)
    const file = sandbox.databaseFile
    expect(queryStore(file, "SELECT hook, message FROM errors")).toEqual([])
    for (const request of mock.requests) {
      expect(request.body.messages.map(messageText).join("\n")).not.toContain("UNSCRIPTED-REQUEST")
    }
    const statusRun = mock.requests.slice(requestsAfter.first, requestsAfter.status).map((request) => request.body)
    expect(statusRun).toHaveLength(1)
    const report = reportOf(statusRun[0] as ChatRequest)
    expect(report).toMatch(/^magic-context status: session /)

    const [session] = queryStore<{ id: string }>(file, "SELECT id FROM sessions")
    const sessionId = session?.id ?? "no-session-stored"
    const [last] = queryStore<{ detail_json: string }>(
      file,
      "SELECT detail_json FROM passes WHERE session_id = ? ORDER BY seq DESC LIMIT 1",
      sessionId,
    )
    const breakdown = (JSON.parse(last?.detail_json ?? "{}") as Pass["detail"]).breakdown
    const [state] = queryStore<{ history_json: string | null }>(
      file,
      "SELECT history_json FROM session_state WHERE session_id = ?",
      sessionId,
    )
    const history = JSON.parse(state?.history_json ?? "null") as { text: string; tokens: number } | null
    if (!history) throw new Error("no history was folded")
    // The last pass rendered the applied history.
    expect(breakdown.history).toBe(history.tokens)
    expect(history.tokens).toBeGreaterThan(0)

    // Each folded compartment at its latest selection's tier, with its representation's stored count.
    const rendered = queryStore<{ tier: string; content: string; tokens: number }>(
      file,
      "SELECT s.tier, r.content, r.tokens FROM selections s JOIN representations r ON r.compartment_id = s.compartment_id " +
        "AND r.tier = s.tier AND r.strategy = 'canonical-record' JOIN compartments c ON c.id = s.compartment_id " +
        "WHERE s.session_id = ? AND c.status = 'folded' " +
        "AND s.id = (SELECT MAX(id) FROM selections WHERE compartment_id = s.compartment_id) ORDER BY c.seq",
      sessionId,
    )
    expect(rendered.length).toBeGreaterThan(0)
    for (const row of rendered) expectEpisodeShown(history.text, row.content)
    // The history says each thing once (an invariant the ledger holds, an identifier listed before are left out), so
    // a compartment's count is its stored count scaled by the share of its text the history carries.
    const shownTokens = (row: { content: string; tokens: number }): number => {
      const from = history.text.indexOf(`\n\n${row.content.split("\n")[0] as string}`) + 2
      const next = history.text.indexOf("\n\n", from)
      const block = history.text.slice(from, next >= 0 ? next : history.text.lastIndexOf("</session-history>"))
      return Math.round(row.tokens * Math.min(1, block.length / row.content.length))
    }
    const tiers = TIERS.flatMap((tier) => {
      const atTier = rendered.filter((row) => row.tier === tier)
      if (atTier.length === 0) return []
      return [{ tier, compartments: atTier.length, tokens: atTier.reduce((sum, row) => sum + shownTokens(row), 0) }]
    })
    // The ledger holds the user's constraint (a pinned fact of c1) and the agent's pin of the notes read.
    expect(queryStore(file, "SELECT text FROM items WHERE retention = 'PIN'")).toHaveLength(1)
    expect(queryStore(file, "SELECT tag FROM pins WHERE session_id = ?", sessionId)).toHaveLength(1)

    const lines = report.split("\n")
    const at = lines.findIndex((line) => line.startsWith("  pinned ledger"))
    const ledgerLine = /^  pinned ledger +~(\d[\d,]*)  (\d+)%  \(2 pinned facts\)$/.exec(lines[at] ?? "")
    if (!ledgerLine) throw new Error(`no pinned ledger line in:\n${report}`)
    const ledger = Number((ledgerLine[1] as string).replaceAll(",", ""))
    expect(ledger).toBeGreaterThan(0)
    expect(Number(ledgerLine[2])).toBe(Math.round((ledger / breakdown.total) * 100))
    // The ledger's size is estimated (no count of it alone is stored); against counting its section of the history
    // with the tokenizer the plugin used (the history's stored count is that tokenizer's count), it is close.
    const pool = createTokenCounterPool()
    try {
      const counter = pool.counterFor("o200k_base")
      expect(counter.count(history.text)).toBe(history.tokens)
      const section = history.text.slice(history.text.indexOf("\n\n## Pinned"), history.text.indexOf("\n\n## Working set"))
      const counted = counter.count(section)
      expect(Math.abs(ledger - counted)).toBeLessThanOrEqual(counted * 0.25)
    } finally {
      pool.dispose()
    }
    // The ledger and the compartment history add up to the pass's history; the tiers and the rest (the working set
    // and the headings) to the compartment history.
    const compartmentHistory = breakdown.history - ledger
    const rest = compartmentHistory - tiers.reduce((sum, tier) => sum + tier.tokens, 0)
    expect(rest).toBeGreaterThanOrEqual(0)
    expect(lines.slice(at - 1, at + 4 + tiers.length)).toEqual([
      breakdownLine("fixed prompt", breakdown.fixed, breakdown.total),
      lines[at],
      breakdownLine("compartment history", compartmentHistory, breakdown.total),
      ...tiers.map((tier) =>
        expect.stringMatching(
          new RegExp(`^    ${tier.tier} +${tokens(tier.tokens)}  \\(${tier.compartments} compartments?\\)$`),
        ),
      ),
      expect.stringMatching(new RegExp(`^    working set, headers +~${tokens(rest)}$`)),
      breakdownLine("settled conversation", breakdown.conversation, breakdown.total),
    ])
    expect(report).toContain(
      "F fixed prompt  L pinned ledger  H compartment history  C settled conversation  P protected recent work  T tool output  . free",
    )
  })
})
