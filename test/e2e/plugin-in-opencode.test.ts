import { existsSync, mkdirSync } from "node:fs"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { SCHEMA_VERSION } from "../../src/store/migrations/index.js"
import {
  isTitleRequest,
  messageText,
  startMockModelServer,
  type ChatRequest,
  type MockModelServer,
  type MockReply,
} from "./harness/mock-model-server.js"
import { createOpenCodeSandbox, type OpenCodeSandbox, type RunResult } from "./harness/opencode-harness.js"
import { openStoreReadOnly } from "./harness/store-reader.js"

const NOTES = "Deploy notes\nThe deploy key lives at vault path secret/deploy.\nLiteral text §5§ is not a tag.\n"
const TAG = /^§(\d+)§ /

/**
 * The scripted model: asks to read notes.md, then answers with text that copies a tag (which the plugin must
 * strip); on a follow-up turn, answers directly.
 */
function script(project: string) {
  return (request: ChatRequest): MockReply => {
    if (isTitleRequest(request)) return { kind: "text", text: "E2E session" }
    const last = request.messages[request.messages.length - 1]
    if (last?.role === "tool") return { kind: "text", text: "§3§ I read the notes. DONE-MARKER" }
    const lastUser = [...request.messages].reverse().find((message) => message.role === "user")
    if (lastUser && messageText(lastUser).includes("follow")) return { kind: "text", text: "Follow-up answered. FOLLOW-MARKER" }
    return { kind: "tool", name: "read", args: { filePath: join(project, "notes.md") } }
  }
}

function mainRequests(mock: MockModelServer): ChatRequest[] {
  return mock.requests.map((request) => request.body).filter((body) => !isTitleRequest(body))
}

function userTexts(request: ChatRequest): string[] {
  return request.messages.filter((message) => message.role === "user").map(messageText)
}

function toolResults(request: ChatRequest): string[] {
  return request.messages.filter((message) => message.role === "tool").map(messageText)
}

describe("magic-context in the real OpenCode", () => {
  let mock: MockModelServer
  let sandbox: OpenCodeSandbox
  let first: RunResult
  let second: RunResult

  beforeAll(async () => {
    let project = ""
    mock = await startMockModelServer((request) => script(project)(request))
    sandbox = createOpenCodeSandbox({
      mockUrl: mock.url,
      files: {
        "notes.md": NOTES,
        // An invalid value: the plugin must report it and go on with the default.
        ".opencode/magic-context.jsonc": '{\n  // bad on purpose\n  "tokenizer": { "encoding": "bogus" }\n}\n',
      },
    })
    project = sandbox.project
    first = await sandbox.run(["run", "--print-logs", "--log-level", "INFO", "please", "read", "the", "notes"])
    second = await sandbox.run(["run", "--continue", "--print-logs", "--log-level", "INFO", "follow", "up"])
  })

  afterAll(async () => {
    await mock.close()
    sandbox.cleanup()
  })

  it("completes both turns", () => {
    expect(first.exitCode, first.stderr.slice(-3000)).toBe(0)
    expect(first.stdout).toContain("DONE-MARKER")
    expect(second.exitCode, second.stderr.slice(-3000)).toBe(0)
    expect(second.stdout).toContain("FOLLOW-MARKER")
  })

  it("loads under Bun and stores with bun:sqlite", () => {
    const db = openStoreReadOnly(sandbox.databaseFile)
    const opener = db.prepare("SELECT value FROM meta WHERE key = 'last_opened_by'").get() as { value: string }
    db.close()
    expect(opener.value).toMatch(/^bun:sqlite on bun \d+\.\d+/)
  })

  it("sends §N§ tags on user text and tool output", () => {
    const requests = mainRequests(mock)
    expect(requests.length).toBe(3)
    const [firstStep, secondStep] = requests as [ChatRequest, ChatRequest]
    expect(userTexts(firstStep)).toEqual(["§1§ please read the notes"])
    const [toolOutput] = toolResults(secondStep)
    expect(toolOutput).toMatch(TAG)
    expect(toolOutput).toContain("vault path secret/deploy")
    // The literal §5§ inside the file is content, not a tag: it is neither stripped nor reinterpreted.
    expect(toolOutput).toContain("Literal text §5§ is not a tag.")
  })

  it("keeps tags stable across turns and tags new material with new numbers", () => {
    const requests = mainRequests(mock)
    const followUp = requests[2] as ChatRequest
    const texts = userTexts(followUp)
    expect(texts[0]).toBe("§1§ please read the notes")
    const firstToolTag = toolResults(requests[1] as ChatRequest)[0]?.match(TAG)?.[1]
    expect(toolResults(followUp)[0]?.match(TAG)?.[1]).toBe(firstToolTag)
    const newest = texts[texts.length - 1] ?? ""
    const newTag = Number(newest.match(TAG)?.[1])
    expect(newest).toMatch(/^§\d+§ follow up$/)
    expect(newTag).toBeGreaterThan(Number(firstToolTag))
    // Never prefixed twice.
    for (const request of requests) for (const text of [...userTexts(request), ...toolResults(request)]) expect(text).not.toMatch(/^§\d+§ §\d+§/)
  })

  it("stores the raw transcript once, pristine", () => {
    const db = openStoreReadOnly(sandbox.databaseFile)
    const sessions = db.prepare("SELECT id FROM sessions").all() as { id: string }[]
    const tool = db.prepare("SELECT content_json FROM parts WHERE type = 'tool'").all() as { content_json: string }[]
    const duplicates = db.prepare("SELECT COUNT(*) AS n FROM (SELECT part_id FROM tags GROUP BY session_id, part_id HAVING COUNT(*) > 1)").get() as { n: number }
    const tags = db.prepare("SELECT tag, kind FROM tags ORDER BY tag").all() as { tag: number; kind: string }[]
    const passes = db.prepare("SELECT COUNT(*) AS n FROM passes").get() as { n: number }
    const errors = db.prepare("SELECT hook, message FROM errors").all()
    db.close()
    expect(sessions).toHaveLength(1)
    expect(tool).toHaveLength(1)
    const output = (JSON.parse(tool[0]?.content_json ?? "{}") as { state: { output: string } }).state.output
    expect(output).toContain("vault path secret/deploy")
    expect(output).not.toMatch(/^§/)
    expect(duplicates.n).toBe(0)
    expect(tags.map((tag) => tag.tag)).toEqual(tags.map((_, index) => index + 1))
    // The user's message, the read, the final answer, the follow-up and its answer (each turn's final answer is stored
    // when the turn ends).
    expect(tags.map((tag) => tag.kind)).toEqual(["message", "tool", "message", "message", "message"])
    expect(passes.n).toBe(3)
    expect(errors).toEqual([])
  })

  it("counts the read's output when OpenCode reports it finished, before the pass that stores it", () => {
    const db = openStoreReadOnly(sandbox.databaseFile)
    const passes = db.prepare("SELECT new_parts, detail_json FROM passes ORDER BY seq").all() as { new_parts: number; detail_json: string }[]
    db.close()
    const countedAhead = passes.map((pass) => (JSON.parse(pass.detail_json) as { countedAhead?: number }).countedAhead)
    // Each turn's first pass runs before any event of the turn's session reached a pass's counter (a new process per
    // turn); the first turn's second pass finds the read's output and its call counted (message.part.updated).
    expect(countedAhead).toEqual([0, 2, 0])
  })

  it("strips tag echoes from the model's own text before OpenCode stores it", () => {
    const db = openStoreReadOnly(sandbox.databaseFile)
    const session = db.prepare("SELECT id FROM sessions").get() as { id: string }
    db.close()
    const exported = sandbox.exportSession(session.id) as { messages: { parts: { type: string; text?: string }[] }[] }
    const texts = exported.messages.flatMap((message) => message.parts.filter((part) => part.type === "text").map((part) => part.text ?? ""))
    expect(texts).toContain("I read the notes. DONE-MARKER")
    expect(texts.join("\n")).not.toContain("§3§")
  })

  it("reports a bad config value with file, key, value and expectation, and goes on with the default", () => {
    // OpenCode's log escapes the quotes of the message.
    const logged = first.stderr.replace(/\\"/g, '"')
    expect(logged).toMatch(/\.opencode\/magic-context\.jsonc: key "tokenizer\.encoding" has value "bogus", expected one of "auto"/)
  })
})

describe("magic-context fails open in the real OpenCode", () => {
  it("an internal error in the transform does not abort the turn; messages go out untouched and the error is recorded", async () => {
    let project = ""
    const mock = await startMockModelServer((request) => script(project)(request))
    const sandbox = createOpenCodeSandbox({ mockUrl: mock.url, files: { "notes.md": NOTES } })
    project = sandbox.project
    try {
      const result = await sandbox.run(["run", "please", "read", "the", "notes"], { env: { MAGIC_CONTEXT_FAULT: "transform,text" } })
      expect(result.exitCode, result.stderr.slice(-3000)).toBe(0)
      expect(result.stdout).toContain("DONE-MARKER")
      const requests = mainRequests(mock)
      expect(requests).toHaveLength(2)
      expect(userTexts(requests[0] as ChatRequest)).toEqual(["please read the notes"])
      expect(toolResults(requests[1] as ChatRequest)[0]).not.toMatch(TAG)
      const db = openStoreReadOnly(sandbox.databaseFile)
      const errors = db.prepare("SELECT hook, code FROM errors ORDER BY id").all() as { hook: string; code: string }[]
      const parts = db.prepare("SELECT COUNT(*) AS n FROM parts").get() as { n: number }
      db.close()
      expect(errors.map((error) => error.hook)).toEqual([
        "experimental.chat.messages.transform",
        "experimental.chat.messages.transform",
        "experimental.text.complete",
      ])
      expect(errors.every((error) => error.code === "fault_injected")).toBe(true)
      // The raw transcript was stored before the fault: nothing is lost.
      expect(parts.n).toBeGreaterThan(0)
    } finally {
      await mock.close()
      sandbox.cleanup()
    }
  })

  it("a database from a newer magic-context is refused without breaking the session", async () => {
    let project = ""
    const mock = await startMockModelServer((request) => script(project)(request))
    const sandbox = createOpenCodeSandbox({ mockUrl: mock.url, files: { "notes.md": NOTES } })
    project = sandbox.project
    try {
      mkdirSync(join(sandbox.databaseFile, ".."), { recursive: true })
      const { createRequire } = await import("node:module")
      const Driver = createRequire(import.meta.url)("better-sqlite3") as typeof import("better-sqlite3")
      const future = new Driver(sandbox.databaseFile)
      future.exec("PRAGMA user_version = 999")
      future.close()
      const result = await sandbox.run(["run", "--print-logs", "--log-level", "INFO", "please", "read", "the", "notes"])
      expect(result.exitCode, result.stderr.slice(-3000)).toBe(0)
      expect(result.stdout).toContain("DONE-MARKER")
      expect(userTexts(mainRequests(mock)[0] as ChatRequest)).toEqual(["please read the notes"])
      expect(result.stderr).toContain(`schema version 999, but this magic-context understands versions up to ${SCHEMA_VERSION}.`)
      expect(existsSync(sandbox.databaseFile)).toBe(true)
    } finally {
      await mock.close()
      sandbox.cleanup()
    }
  })
})

