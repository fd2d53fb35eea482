import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { fixtureText } from "./fixture-text.js"
import { messageText, startMockModelServer, type ChatRequest, type MockModelServer, type MockReply } from "./mock-model-server.js"
import { REPO_ROOT, type RunResult } from "./opencode-harness.js"
import { createPiSandbox, type PiHost, type PiSandbox } from "./pi-harness.js"
import { readPassFacts, replayLikeLive } from "./pass-facts.js"
import { keepRequests, systemTexts, toolResult } from "./prompt-inspection.js"
import { queryStore } from "./store-reader.js"

type Pass = { seq: number; decision: string; first_divergence: number | null; detail: { dropped: number[]; reason: string } }

function readPasses(file: string): Pass[] {
  return queryStore<{ seq: number; decision: string; first_divergence: number | null; detail_json: string }>(file, "SELECT seq, decision, first_divergence, detail_json FROM passes ORDER BY seq").map(
    (row) => ({ ...row, detail: JSON.parse(row.detail_json) as Pass["detail"] }),
  )
}

function expectExitOk(result: RunResult): void {
  expect(result.exitCode, result.stderr.slice(-3000)).toBe(0)
}

/** The provider's report for a request: about a token per four characters of what it was sent (deterministic). */
function promptTokensOf(request: ChatRequest): number {
  return Math.round(JSON.stringify(request.messages).length / 4)
}

/** The index of the first message two requests do not share byte for byte. */
function firstChangedMessage(previous: ChatRequest, next: ChatRequest): number {
  const index = previous.messages.findIndex((message, at) => JSON.stringify(next.messages[at]) !== JSON.stringify(message))
  return index === -1 ? previous.messages.length : index
}

/**
 * The Pi extension's end-to-end assertions, run in the real `pi` binary of `host` against the mock model: the
 * extension loads (with -e and as a package in the settings), tags reach the model, ctx_reduce lands at one execute
 * pass with the prompt otherwise append-only, the raw session is kept, a replay of Pi's session file renders the same
 * prompts, /ctx-status needs no model call, a failing pass fails open, and the reminders go out on both channels.
 */
export function describePiExtension(host: PiHost): void {
  describe(`magic-context as a Pi extension in the real pi binary (${host.label})`, () => {
    const files: Record<string, string> = {
      // A low threshold so three file reads put the session over it; the protected window covers only the newest step.
      "magic-context.jsonc": '{ "execute_threshold": 30, "protected_tokens": 300, "historian": { "strategy": "off" } }\n',
    }
    for (const label of ["A", "B", "C", "D"]) files[`${label.toLowerCase()}.txt`] = fixtureText(label, 2_500)

    let mock: MockModelServer
    let sandbox: PiSandbox
    let run: RunResult
    let faultMock: MockModelServer
    let faultSandbox: PiSandbox
    let faultRun: RunResult
    let installedMock: MockModelServer
    let installedSandbox: PiSandbox
    let installedRun: RunResult

    beforeAll(async () => {
      // Read a, b and c; drop the first read's output (§2§: the user's prompt is §1§) in the same response as the
      // read of d (two parallel tool calls, as the guidance asks); answer.
      const steps: ((request: ChatRequest) => MockReply)[] = [
        (request) => ({ kind: "tool", name: "read", args: { path: "a.txt" }, promptTokens: promptTokensOf(request) }),
        (request) => ({ kind: "tool", name: "read", args: { path: "b.txt" }, promptTokens: promptTokensOf(request) }),
        (request) => ({ kind: "tool", name: "read", args: { path: "c.txt" }, promptTokens: promptTokensOf(request) }),
        (request) => ({
          kind: "tools",
          calls: [
            { name: "ctx_reduce", args: { drop: "2" } },
            { name: "read", args: { path: "d.txt" } },
          ],
          promptTokens: promptTokensOf(request),
        }),
      ]
      // The answer copies a tag, as models do: the extension cleans it before Pi shows and stores the reply.
      mock = await startMockModelServer((request, n) => steps[n - 1]?.(request) ?? { kind: "text", text: "§3§ PI-DONE-MARKER", promptTokens: promptTokensOf(request) })
      sandbox = createPiSandbox({ mockUrl: mock.url, files, host })
      run = await sandbox.run("Read the files and summarize them.")
      keepRequests(sandbox.root, mock)

      // The same start with an injected fault in the context handler: every pass fails after storing, Pi goes on.
      faultMock = await startMockModelServer((request, n) =>
        n === 1 ? { kind: "tool", name: "read", args: { path: "a.txt" }, promptTokens: promptTokensOf(request) } : { kind: "text", text: "FAULT-DONE-MARKER" },
      )
      faultSandbox = createPiSandbox({ mockUrl: faultMock.url, files, host })
      faultRun = await faultSandbox.run("Read a.txt.", { env: { MAGIC_CONTEXT_FAULT: "transform" } })

      // Installed the way Pi users install a package (`pi install <path>` lists it in settings), no -e flag.
      installedMock = await startMockModelServer(() => ({ kind: "text", text: "INSTALLED-MARKER" }))
      installedSandbox = createPiSandbox({ mockUrl: installedMock.url, packages: [REPO_ROOT], host })
      installedRun = await installedSandbox.run("Hello from settings.", { extension: false })
    })

    afterAll(async () => {
      await mock?.close()
      await faultMock?.close()
      await installedMock?.close()
      sandbox?.cleanup()
      faultSandbox?.cleanup()
      installedSandbox?.cleanup()
    })

    it("loads: the turn finishes, the tools are offered, the guidance is in the system prompt and tags reach the model", () => {
      expectExitOk(run)
      expect(run.stdout.trim()).toBe("PI-DONE-MARKER")
      const replies = (sandbox.sessionRecords() as { message?: { role: string; content: unknown } }[]).filter((record) => record.message?.role === "assistant")
      expect(replies.at(-1)?.message?.content).toEqual([{ type: "text", text: "PI-DONE-MARKER" }])
      // Four steps and the answer: the ctx_reduce call took no request of its own.
      expect(mock.requests).toHaveLength(5)
      const [first] = mock.requests
      const tools = (first?.body.tools ?? []).map((tool) => tool.function.name)
      expect(tools).toEqual(expect.arrayContaining(["read", "bash", "ctx_reduce", "ctx_expand", "ctx_pin"]))
      expect(systemTexts(first!.body).join("\n")).toContain("<context-management>")
      const user = first!.body.messages.find((message) => message.role === "user")
      expect(messageText(user!)).toBe("§1§ Read the files and summarize them.")
      // Each read's output arrives tagged, its content whole.
      const third = mock.requests[3]!.body
      expect(messageText(toolResult(third, "call_1")!)).toMatch(/^§2§ [\s\S]*FILE-A-BEGIN[\s\S]*FILE-A-END/)
      expect(messageText(toolResult(third, "call_3")!)).toMatch(/^§4§ [\s\S]*FILE-C-END/)
      expect(queryStore(sandbox.databaseFile, "SELECT hook, message FROM errors")).toEqual([])
      const [opener] = queryStore<{ value: string }>(sandbox.databaseFile, "SELECT value FROM meta WHERE key = 'last_opened_by'")
      expect(opener?.value).toMatch(new RegExp(`^${host.storeDriver} on node \\d`))
    })

    it("loads as a Pi package listed in the settings (the package.json pi manifest)", () => {
      expectExitOk(installedRun)
      expect(installedRun.stdout).toContain("INSTALLED-MARKER")
      const request = installedMock.requests[0]!.body
      expect(messageText(request.messages.find((message) => message.role === "user")!)).toBe("§1§ Hello from settings.")
      expect((request.tools ?? []).map((tool) => tool.function.name)).toContain("ctx_reduce")
    })

    it("answers ctx_reduce and lands the drop at one execute pass, the prompt an append-only prefix before and after it", () => {
      const requests = mock.requests.map((request) => request.body)
      // Pi ran both calls of the batched response: one assistant message with the two calls, each answered.
      const batched = requests[4]!.messages.filter((message) => (message.tool_calls ?? []).length > 1)
      expect(batched.map((message) => message.tool_calls!.map((call) => [call.id, call.function.name]))).toEqual([
        [
          ["call_4", "ctx_reduce"],
          ["call_4_1", "read"],
        ],
      ])
      expect(messageText(toolResult(requests[4]!, "call_4")!)).toMatch(/^§5§ Queued 1 drop \(§2§, ~[\d,]+ tokens\); /)
      expect(messageText(toolResult(requests[4]!, "call_4_1")!)).toMatch(/^§6§ [\s\S]*FILE-D-BEGIN[\s\S]*FILE-D-END/)
      const passes = readPasses(sandbox.databaseFile)
      const executes = passes.filter((pass) => pass.decision === "execute")
      expect(executes.map((pass) => pass.detail.dropped)).toEqual([[2]])
      const landed = executes[0]!.seq
      // Request n is sent after pass n: every other step only appends to what the model saw before.
      for (let n = 2; n <= requests.length; n += 1) {
        const previous = requests[n - 2]!
        const next = requests[n - 1]!
        if (n === landed) continue
        expect(firstChangedMessage(previous, next), `request ${n}`).toBe(previous.messages.length)
      }
      // At the execute pass the first change is the dropped output; everything before it is byte-identical.
      const before = requests[landed - 2]!
      const after = requests[landed - 1]!
      const changed = firstChangedMessage(before, after)
      expect(after.messages[changed]?.role).toBe("tool")
      expect(after.messages[changed]?.tool_call_id).toBe("call_1")
      const dropped = messageText(after.messages[changed]!)
      expect(dropped).toContain("§2§")
      expect(dropped).not.toContain("FILE-A-BEGIN")
      expect(messageText(toolResult(after, "call_2")!)).toMatch(/^§3§ [\s\S]*FILE-B-END/)
    })

    it("keeps the raw session: a Pi session row, every message, and the dropped output as Pi produced it", () => {
      expect(queryStore(sandbox.databaseFile, "SELECT source, directory FROM sessions")).toEqual([{ source: "pi", directory: sandbox.project }])
      const sessionId = (sandbox.sessionRecords()[0] as { id: string }).id
      expect(queryStore(sandbox.databaseFile, "SELECT id FROM sessions")).toEqual([{ id: sessionId }])
      const roles = queryStore<{ role: string }>(sandbox.databaseFile, "SELECT role FROM messages ORDER BY seq").map((row) => row.role)
      // The four responses with calls (the last with two) and the final reply (stored when the run ended).
      expect(roles).toEqual(["user", "assistant", "assistant", "assistant", "assistant", "assistant"])
      const [final] = queryStore<{ content_json: string }>(sandbox.databaseFile, "SELECT p.content_json FROM parts p JOIN messages m ON m.id = p.message_id ORDER BY m.seq DESC LIMIT 1")
      expect(JSON.parse(final!.content_json)).toMatchObject({ type: "text", text: "PI-DONE-MARKER" })
      const [raw] = queryStore<{ content_json: string }>(sandbox.databaseFile, "SELECT p.content_json FROM parts p JOIN tags t ON t.part_id = p.id WHERE t.tag = 2")
      const stored = JSON.parse(raw!.content_json) as { tool: string; state: { output: string } }
      expect(stored.tool).toBe("read")
      expect(stored.state.output).toContain("FILE-A-BEGIN")
      expect(stored.state.output).not.toContain("§")
    })

    it("renders the same prompts when Pi's session file is replayed (decisions, drops, tokens, divergence, execute-prompt hashes)", () => {
      const live = readPassFacts(sandbox.databaseFile)
      expect(live.passes).toHaveLength(5)
      const databaseFile = join(sandbox.root, "replay.db")
      replayLikeLive({ sessionFile: sandbox.sessionFile(), live, databaseFile, cwd: sandbox.project, env: sandbox.env })
      expect(readPassFacts(databaseFile)).toEqual(live)
    })

    it("shows /ctx-status for the session without a model call, the report never reaching the model", async () => {
      const before = mock.requests.length
      const status = await sandbox.run("/ctx-status", { continueSession: true })
      expectExitOk(status)
      expect(mock.requests).toHaveLength(before)
      const report = status.stdout + status.stderr
      const sessionId = (sandbox.sessionRecords()[0] as { id: string }).id
      expect(report).toContain(`magic-context status: session ${sessionId}`)
      expect(report).toMatch(/Pi compaction: enabled false \[[^\]]*settings\.json\]/)
      expect(report).toContain("§2§")
      // The report is in the session for the user; the context handler removes it before any pass.
      const records = sandbox.sessionRecords() as { type: string; customType?: string }[]
      expect(records.some((record) => record.type === "custom_message" && record.customType === "magic-context-status")).toBe(true)
      const next = await sandbox.run("Anything else?", { continueSession: true })
      expectExitOk(next)
      const sent = mock.requests.slice(before)
      expect(sent).toHaveLength(1)
      expect(JSON.stringify(sent[0]!.body.messages)).not.toContain("magic-context status")
      expect(messageText(sent[0]!.body.messages.at(-1)!)).toMatch(/^§\d+§ Anything else\?$/)
    })

    it("fails open: with the context handler failing, the turn completes on Pi's own messages and the error is recorded", () => {
      expectExitOk(faultRun)
      expect(faultRun.stdout).toContain("FAULT-DONE-MARKER")
      expect(faultMock.requests).toHaveLength(2)
      for (const request of faultMock.requests) {
        const user = request.body.messages.find((message) => message.role === "user")
        expect(messageText(user!)).toBe("Read a.txt.")
      }
      expect(messageText(toolResult(faultMock.requests[1]!.body, "call_1")!)).toMatch(/^FILE-A-BEGIN/)
      const errors = queryStore<{ hook: string; message: string }>(faultSandbox.databaseFile, "SELECT hook, message FROM errors")
      expect(errors.length).toBeGreaterThan(0)
      expect(errors.every((error) => error.hook === "pi.context" && /injected fault at transform/.test(error.message))).toBe(true)
      // The raw messages were stored before the fault, and the final reply when the run ended.
      expect(queryStore(faultSandbox.databaseFile, "SELECT role FROM messages ORDER BY seq")).toEqual([{ role: "user" }, { role: "assistant" }, { role: "assistant" }])
    })
  })

  describe(`magic-context's reminders in the real pi binary (${host.label})`, () => {
    // A roomy 200k window and eighteen reads of ~6k tokens the agent never drops: the reclaimable share of the live
    // tail grows until the reminders come (seed: the nudge bands), on a tool result (channel 1) and as a steer message.
    const files: Record<string, string> = {}
    for (let index = 1; index <= 18; index += 1) files[`r${index}.txt`] = fixtureText(`R${index}`, 6_000)
    let mock: MockModelServer
    let sandbox: PiSandbox
    let run: RunResult

    beforeAll(async () => {
      mock = await startMockModelServer((request, n) =>
        n <= 18 ? { kind: "tool", name: "read", args: { path: `r${n}.txt` }, promptTokens: promptTokensOf(request) } : { kind: "text", text: "READ-ALL", promptTokens: promptTokensOf(request) },
      )
      sandbox = createPiSandbox({ mockUrl: mock.url, files, contextWindow: 200_000, host })
      run = await sandbox.run("Read r1.txt to r18.txt.")
      keepRequests(sandbox.root, mock)
    })

    afterAll(async () => {
      await mock?.close()
      sandbox?.cleanup()
    })

    it("appends a reminder to a tool result (channel 1) and sends a steer message after the results (channel 2), neither in Pi's session", () => {
      expectExitOk(run)
      const nudges = queryStore<{ detail_json: string }>(sandbox.databaseFile, "SELECT detail_json FROM passes ORDER BY seq").flatMap((row) => {
        const nudge = (JSON.parse(row.detail_json) as { nudge: { channel: number } | null }).nudge
        return nudge ? [nudge.channel] : []
      })
      expect(new Set(nudges)).toEqual(new Set([1, 2]))
      const last = mock.requests.at(-1)!.body.messages
      const onResult = last.filter((message) => message.role === "tool" && /<system-reminder>magic-context[\s\S]*<\/system-reminder>$/.test(messageText(message)))
      expect(onResult.length).toBeGreaterThan(0)
      const steerAt = last.findIndex((message) => message.role === "user" && messageText(message).startsWith("<system-reminder>magic-context:"))
      expect(steerAt).toBeGreaterThan(0)
      // After a call's results, never between a call and them (the provider's protocol).
      expect(last[steerAt - 1]?.role).toBe("tool")
      expect(JSON.stringify(sandbox.sessionRecords())).not.toContain("system-reminder")
    })
  })
}
