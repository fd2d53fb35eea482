import { existsSync } from "node:fs"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { fixtureText } from "./harness/fixture-text.js"
import { messageText, startMockModelServer, type ChatRequest, type MockModelServer, type MockReply } from "./harness/mock-model-server.js"
import { REPO_ROOT, type RunResult } from "./harness/opencode-harness.js"
import { readPassFacts, replayLikeLive } from "./harness/pass-facts.js"
import { describePiExtension } from "./harness/pi-extension-suite.js"
import { createPiSandbox, PI_1, type PiSandbox } from "./harness/pi-harness.js"
import { toolResult } from "./harness/prompt-inspection.js"
import { queryStore } from "./harness/store-reader.js"

// Pi 1.x needs Node >= 22.19: the Node 22 of test/hosts/pi-1 runs it, where the root's better-sqlite3 (built for the
// tests' Node) does not load and the store opens with node:sqlite. Pi 0.73 runs the same assertions in
// pi-extension.test.ts.
if (!existsSync(PI_1.bin) || !existsSync(PI_1.node)) {
  throw new Error(`Pi 1.x is not installed (${PI_1.bin}, ${PI_1.node}): run node scripts/install-test-hosts.mjs`)
}
describePiExtension(PI_1)

describe("magic-context in Pi 1.6 where no SQLite driver loads", () => {
  // node:sqlite switched off (--no-experimental-sqlite) in a Node where the root's better-sqlite3 does not load.
  const env = { NODE_OPTIONS: "--no-experimental-sqlite" }
  let mock: MockModelServer
  let sandbox: PiSandbox
  let run: RunResult
  let status: RunResult

  beforeAll(async () => {
    mock = await startMockModelServer(() => ({ kind: "text", text: "NO-DRIVER-DONE" }))
    sandbox = createPiSandbox({ mockUrl: mock.url, host: PI_1 })
    run = await sandbox.run("Hello without a store.", { env })
    status = await sandbox.run("/ctx-status", { env, continueSession: true })
  })

  afterAll(async () => {
    await mock?.close()
    sandbox?.cleanup()
  })

  it("fails open: the turn completes on Pi's own messages, untagged, and no store is written", () => {
    expect(run.exitCode, run.stderr.slice(-3000)).toBe(0)
    expect(run.stdout).toContain("NO-DRIVER-DONE")
    expect(mock.requests).toHaveLength(1)
    expect(messageText(mock.requests[0]!.body.messages.find((message) => message.role === "user")!)).toBe("Hello without a store.")
    expect(existsSync(sandbox.databaseFile)).toBe(false)
  })

  it("says in /ctx-status that no driver loads and gives the command that rebuilds better-sqlite3 for Pi's Node", () => {
    expect(status.exitCode, status.stderr.slice(-3000)).toBe(0)
    expect(mock.requests).toHaveLength(1)
    const report = status.stdout + status.stderr
    expect(report).toContain(`Store: unusable since`)
    expect(report).toContain(`${sandbox.databaseFile}: cannot open the store: no SQLite driver loads in Node 22.`)
    expect(report).toContain(`Fix: rebuild it for Node 22.`)
    expect(report).toContain(`cd ${JSON.stringify(REPO_ROOT.replace(/\/$/, ""))} && PATH="`)
    expect(report).toContain(`npm rebuild better-sqlite3`)
  })
})

describe("magic-context in Pi 1.6 across a new session (RPC new_session, as /new)", () => {
  // Pi 1.x tears the extension down at a session switch (`session_shutdown`, reason "new") and loads it afresh for the
  // new session: the first instance stores what its session owes and lets it go, the second starts from nothing.
  let mock: MockModelServer
  let sandbox: PiSandbox
  let run: RunResult

  beforeAll(async () => {
    mock = await startMockModelServer((_request, n) => ({ kind: "text", text: `REPLY-${n}` }))
    sandbox = createPiSandbox({ mockUrl: mock.url, host: PI_1 })
    run = await sandbox.rpc([{ type: "prompt", message: "First session." }, { type: "new_session" }, { type: "prompt", message: "Second session." }])
  })

  afterAll(async () => {
    await mock?.close()
    sandbox?.cleanup()
  })

  it("stores each session whole under its own id, and tags the second from 1 in a fresh extension", () => {
    expect(run.exitCode, run.stderr.slice(-3000)).toBe(0)
    expect(mock.requests).toHaveLength(2)
    const firstUser = (index: number): string => messageText(mock.requests[index]!.body.messages.find((message) => message.role === "user")!)
    expect([firstUser(0), firstUser(1)]).toEqual(["§1§ First session.", "§1§ Second session."])
    const sessions = queryStore<{ id: string }>(sandbox.databaseFile, "SELECT id FROM sessions ORDER BY created_at, rowid")
    expect(sessions).toHaveLength(2)
    // The user's message and the final reply (stored at agent_end), and one pass, for each.
    for (const { id } of sessions) {
      expect(queryStore(sandbox.databaseFile, "SELECT role FROM messages WHERE session_id = ? ORDER BY seq", id)).toEqual([{ role: "user" }, { role: "assistant" }])
      expect(queryStore(sandbox.databaseFile, "SELECT seq FROM passes WHERE session_id = ?", id)).toEqual([{ seq: 1 }])
    }
    expect(queryStore(sandbox.databaseFile, "SELECT hook, message FROM errors")).toEqual([])
  })
})

describe("magic-context in Pi 1.6 beside another extension's context_edit entries", () => {
  // test/pi/fixtures/context-edit-extension.ts replaces the result of the read of a.txt, omits that of b.txt and adds
  // a custom_message, through Pi's turn_end entries; the agent then drops c.txt's output (§5§) with ctx_reduce. The
  // omitted result of b.txt had §3§ while Pi still sent it; the custom_message, user text Pi sends, is §4§.
  const extension = fileURLToPath(new URL("../pi/fixtures/context-edit-extension.ts", import.meta.url))
  const files: Record<string, string> = {
    "magic-context.jsonc": '{ "execute_threshold": 30, "protected_tokens": 300, "historian": { "strategy": "off" } }\n',
  }
  for (const label of ["A", "B", "C", "D"]) files[`${label.toLowerCase()}.txt`] = fixtureText(label, 2_500)
  const tokensOf = (request: ChatRequest): number => Math.round(JSON.stringify(request.messages).length / 4)
  const steps: ((request: ChatRequest) => MockReply)[] = [
    (request) => ({ kind: "tool", name: "read", args: { path: "a.txt" }, promptTokens: tokensOf(request) }),
    (request) => ({ kind: "tool", name: "read", args: { path: "b.txt" }, promptTokens: tokensOf(request) }),
    (request) => ({ kind: "tool", name: "read", args: { path: "c.txt" }, promptTokens: tokensOf(request) }),
    (request) => ({ kind: "tool", name: "ctx_reduce", args: { drop: "5" }, promptTokens: tokensOf(request) }),
    (request) => ({ kind: "tool", name: "read", args: { path: "d.txt" }, promptTokens: tokensOf(request) }),
  ]
  let mock: MockModelServer
  let sandbox: PiSandbox
  let run: RunResult

  beforeAll(async () => {
    mock = await startMockModelServer((request, n) => steps[n - 1]?.(request) ?? { kind: "text", text: "EDITS-DONE", promptTokens: tokensOf(request) })
    sandbox = createPiSandbox({ mockUrl: mock.url, files, host: PI_1, contextWindow: 20_000 })
    run = await sandbox.run("Read the files.", { extraExtensions: [extension] })
  })

  afterAll(async () => {
    await mock?.close()
    sandbox?.cleanup()
  })

  it("tags what Pi's projection sends: the replacement and the other extension's message, not the omitted result", () => {
    expect(run.exitCode, run.stderr.slice(-3000)).toBe(0)
    expect(run.stdout).toContain("EDITS-DONE")
    const last = mock.requests.at(-1)!.body
    expect(messageText(toolResult(last, "call_1")!)).toBe("§2§ A-REPLACED-BY-CONTEXT-EDIT")
    expect(messageText(toolResult(last, "call_2")!)).toBe("No result provided")
    expect(last.messages.filter((message) => message.role === "user").map((message) => messageText(message))).toEqual(["§1§ Read the files.", "§4§ NOTE-FROM-ANOTHER-EXTENSION"])
    expect(messageText(toolResult(last, "call_3")!)).toMatch(/^\[dropped §5§/)
    expect(JSON.stringify(last.messages)).not.toContain("FILE-B-BEGIN")
  })

  it("lands the drop at an execute pass, and a replay of Pi's session file renders the same prompts", () => {
    const live = readPassFacts(sandbox.databaseFile)
    expect(live.passes.filter((pass) => pass.decision === "execute").map((pass) => pass.dropped)).toEqual([[5]])
    const databaseFile = join(sandbox.root, "replay.db")
    replayLikeLive({ sessionFile: sandbox.sessionFile(), live, databaseFile, cwd: sandbox.project, env: sandbox.env })
    expect(readPassFacts(databaseFile)).toEqual(live)
  })
})

describe("magic-context in Pi 1.6 across Pi's own compaction", () => {
  // Pi compacts between two prompts once the provider reports a prompt over its threshold (the window less
  // reserveTokens); the next request starts with the summary, which Pi sends as user text.
  const files: Record<string, string> = { "magic-context.jsonc": '{ "historian": { "strategy": "off" } }\n' }
  for (const label of ["A", "B", "C", "D"]) files[`${label.toLowerCase()}.txt`] = fixtureText(label, 400)
  let mock: MockModelServer
  let sandbox: PiSandbox
  let runs: RunResult[]

  beforeAll(async () => {
    mock = await startMockModelServer((request, n) => {
      if ((request.tools ?? []).length === 0) return { kind: "text", text: "## Goal\nSUMMARY-OF-THE-EARLIER-READS" }
      const path = ["a.txt", "b.txt", "c.txt", "d.txt"][n - 1]
      const promptTokens = n === 4 ? 6_000 : 800
      return path ? { kind: "tool", name: "read", args: { path }, promptTokens } : { kind: "text", text: `COMPACTED-ANSWER-${n}`, promptTokens }
    })
    sandbox = createPiSandbox({ mockUrl: mock.url, files, host: PI_1, piCompaction: true, contextWindow: 20_000, piSettings: { compaction: { reserveTokens: 16_384, keepRecentTokens: 1_000 } } })
    runs = [await sandbox.run("Read a.txt, b.txt, c.txt and d.txt."), await sandbox.run("What did you read?", { continueSession: true })]
  })

  afterAll(async () => {
    await mock?.close()
    sandbox?.cleanup()
  })

  it("tags Pi's summary as the user text Pi sends, and a replay of the session file reads it the same way", () => {
    for (const run of runs) expect(run.exitCode, run.stderr.slice(-3000)).toBe(0)
    const last = mock.requests.at(-1)!.body.messages.filter((message) => message.role !== "system")
    const summary = messageText(last[0]!)
    expect(last[0]!.role).toBe("user")
    expect(summary).toMatch(/^§\d+§ The conversation history before this point was compacted into the following summary:\n\n<summary>\n/)
    expect(summary).toContain("SUMMARY-OF-THE-EARLIER-READS")
    const databaseFile = join(sandbox.root, "replay.db")
    replayLikeLive({ sessionFile: sandbox.sessionFile(), live: readPassFacts(sandbox.databaseFile), databaseFile, cwd: sandbox.project, env: sandbox.env })
    // Both stores hold the summary as a user message of inserted text: the live pass read it as the replay does.
    const summaryParts = (file: string): unknown[] =>
      queryStore<{ content_json: string }>(file, "SELECT p.content_json FROM parts p JOIN messages m ON m.session_id = p.session_id AND m.id = p.message_id WHERE m.role = 'user' AND p.content_json LIKE '%SUMMARY-OF-THE-EARLIER-READS%'").map((row) => JSON.parse(row.content_json) as unknown)
    for (const file of [sandbox.databaseFile, databaseFile]) expect(summaryParts(file)).toEqual([expect.objectContaining({ type: "text", synthetic: true, text: expect.stringContaining("<summary>\nNo prior history.") })])
  })
})

describe("magic-context in Pi 1.6 with commands the user ran with `!` (Pi's RPC bash)", () => {
  const files: Record<string, string> = {
    "magic-context.jsonc": '{ "historian": { "strategy": "off" } }\n',
    "notes.txt": "NOTES: the release is frozen until the migration lands.\n",
    "secret.txt": "SECRET-NOT-FOR-THE-MODEL\n",
    "a.txt": fixtureText("A", 400),
  }
  let mock: MockModelServer
  let sandbox: PiSandbox
  let run: RunResult

  beforeAll(async () => {
    mock = await startMockModelServer((_request, n) => (n === 1 ? { kind: "tool", name: "read", args: { path: "a.txt" } } : { kind: "text", text: "BASH-DONE" }))
    sandbox = createPiSandbox({ mockUrl: mock.url, files, host: PI_1 })
    run = await sandbox.rpc([
      { type: "bash", command: "cat notes.txt" },
      { type: "bash", command: "cat secret.txt", excludeFromContext: true },
      { type: "prompt", message: "Read a.txt and tell me what the notes say." },
    ])
  })

  afterAll(async () => {
    await mock?.close()
    sandbox?.cleanup()
  })

  it("tags the `!` run as the user text Pi sends, leaves the `!!` one to Pi, and a replay renders the same prompts", () => {
    expect(run.exitCode, run.stderr.slice(-3000)).toBe(0)
    expect(mock.requests).toHaveLength(2)
    const users = mock.requests.at(-1)!.body.messages.filter((message) => message.role === "user").map((message) => messageText(message))
    expect(users).toEqual(["§1§ Ran `cat notes.txt`\n```\nNOTES: the release is frozen until the migration lands.\n\n```", "§2§ Read a.txt and tell me what the notes say."])
    expect(JSON.stringify(mock.requests.map((request) => request.body.messages))).not.toContain("SECRET-NOT-FOR-THE-MODEL")
    const live = readPassFacts(sandbox.databaseFile)
    expect(live.passes).toHaveLength(2)
    const databaseFile = join(sandbox.root, "replay.db")
    replayLikeLive({ sessionFile: sandbox.sessionFile(), live, databaseFile, cwd: sandbox.project, env: sandbox.env })
    expect(readPassFacts(databaseFile)).toEqual(live)
  })
})
