import { mkdirSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { afterEach, describe, expect, it } from "vitest"
import type { HostRuntime } from "../../src/host/host-runtime.js"
import { registerMagicContext } from "../../src/pi/pi-extension.js"
import type { PiMessage } from "../../src/pi/pi-messages.js"
import { openDatabase } from "../../src/store/open-database.js"
import { createTempDirs } from "../helpers/temp-dirs.js"

const dirs = createTempDirs()
const runtimes: HostRuntime[] = []

afterEach(() => {
  for (const runtime of runtimes.splice(0)) runtime.dispose()
  dirs.cleanup()
})

type Handler = (event: unknown, ctx: unknown) => unknown

/** Pi's extension API as far as the extension uses it, recording what it registers (the real binary: test/e2e). */
function fakePi() {
  const handlers = new Map<string, Handler>()
  const tools = new Map<string, { execute: (...args: unknown[]) => Promise<{ content: { text: string }[] }> }>()
  const api = {
    on: (event: string, handler: Handler) => void handlers.set(event, handler),
    registerTool: (tool: { name: string; execute: (...args: unknown[]) => Promise<{ content: { text: string }[] }> }) => void tools.set(tool.name, tool),
    registerCommand: () => undefined,
    sendMessage: () => undefined,
    getActiveTools: () => ["read", "ctx_reduce", "ctx_expand", "ctx_pin"],
    getAllTools: () => [],
  }
  return { api, handlers, tools }
}

const ctx = (cwd: string) => ({
  cwd,
  hasUI: false,
  model: { provider: "mock", id: "mock-model", contextWindow: 32_000, maxTokens: 4_096 },
  sessionManager: { getSessionId: () => "pi-unit", getSessionName: () => undefined, getBranch: () => [] },
})

const context: PiMessage[] = [{ role: "user", content: "Fix the parser", timestamp: 1_000 }]

/** The extension registered in a project whose config puts the store at `database` (relative to the project). */
function extensionWith(database: string) {
  const project = dirs.make("pi-ext")
  writeFileSync(join(project, "magic-context.jsonc"), JSON.stringify({ database: { path: join(project, database) } }))
  const pi = fakePi()
  const runtime = registerMagicContext(pi.api as never, { env: { HOME: project }, cwd: project })
  runtimes.push(runtime)
  return { ...pi, project, runtime }
}

describe("registerMagicContext", () => {
  it("tags Pi's context in the context handler", async () => {
    const { handlers, project } = extensionWith("store.db")
    const result = (await handlers.get("context")?.({ type: "context", messages: structuredClone(context) }, ctx(project))) as { messages: PiMessage[] }
    expect(result.messages).toEqual([{ role: "user", content: "§1§ Fix the parser", timestamp: 1_000 }])
  })

  it("passes Pi's messages through and records the error when the store cannot be opened", async () => {
    const { handlers, tools, project, runtime } = extensionWith("not-a-file")
    mkdirSync(join(project, "not-a-file"))
    const result = await handlers.get("context")?.({ type: "context", messages: structuredClone(context) }, ctx(project))
    expect(result).toBeUndefined()
    expect(runtime.errors.recent().map((error) => error.hook)).toContain("pi.context")
    // A tool call then answers in words rather than throwing into Pi.
    const answer = await tools.get("ctx_reduce")?.execute("call_1", { drop: "1" }, undefined, undefined, ctx(project))
    expect(answer?.content[0]?.text).toMatch(/^Nothing was queued: magic-context has not seen this session's context yet/)
  })

  it("on session_shutdown (quit, or a new, resumed or forked session) stores what the pass owed and holds no session", async () => {
    const { handlers, project, runtime } = extensionWith("store.db")
    await handlers.get("context")?.({ type: "context", messages: structuredClone(context) }, ctx(project))
    expect(runtime.heldSessions()).toBe(1)
    // Pi tears the extension down right away: the pass's record and rows, owed a turn of the loop later, go in first.
    await handlers.get("session_shutdown")?.({ type: "session_shutdown", reason: "new" }, ctx(project))
    expect(runtime.heldSessions()).toBe(0)
    const db = await openDatabase(join(project, "store.db"))
    try {
      expect(db.prepare("SELECT tag FROM tags WHERE session_id = 'pi-unit'").all()).toEqual([{ tag: 1 }])
      expect(db.prepare("SELECT seq FROM passes WHERE session_id = 'pi-unit'").all()).toEqual([{ seq: 1 }])
    } finally {
      db.close()
    }
  })
})
