import type { Hooks } from "@opencode-ai/plugin"
import { existsSync, mkdirSync, mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterEach, beforeEach, describe, expect, it } from "vitest"
import { defaultConfig, type Config } from "../../src/config/schema.js"
import { createErrorLog, type ErrorLog } from "../../src/host/error-log.js"
import { createHooks } from "../../src/plugin/hooks.js"
import { createHostRuntime, type HostRuntime } from "../../src/host/host-runtime.js"
import { REDUCE_GUIDANCE } from "../../src/reduce/agent-texts.js"
import { listErrors } from "../../src/store/error-repository.js"
import { openDatabase } from "../../src/store/open-database.js"
import { listPasses } from "../../src/store/pass-repository.js"
import { countSessionRows } from "../../src/store/raw-repository.js"
import { createTokenCounterPool } from "../../src/tokens/tiktoken-counter.js"
import type { HostMessage } from "../../src/transcript/host-message.js"
import { loopTurn } from "../helpers/plugin-harness.js"
import {
  asOpenCodeMessages,
  assistantMessage,
  completed,
  mediaFile,
  partById,
  text,
  tool,
  userMessage,
  visibleText,
} from "../helpers/host-messages.js"

const SESSION = "ses_hooks"

const session = (): HostMessage[] => [
  userMessage({ id: "msg_001", sessionID: SESSION, parts: [text("u1", "read a.txt"), mediaFile("f1", "shot.png")] }),
  assistantMessage({
    id: "msg_002",
    sessionID: SESSION,
    parts: [text("a1", "reading"), tool("t1", "read", completed({ path: "a.txt" }, "§5§ contents"))],
  }),
]

type Harness = {
  hooks: Hooks
  runtime: HostRuntime
  errors: ErrorLog
  hostLines: string[]
  dbFile: string
  /** How often the hooks asked for the host's provider list. */
  providerLoads: () => number
}

let directory: string
let harnesses: Harness[] = []

beforeEach(() => {
  directory = mkdtempSync(join(tmpdir(), "magic-context-hooks-"))
  harnesses = []
})

afterEach(async () => {
  for (const harness of harnesses) await harness.hooks.dispose?.()
  rmSync(directory, { recursive: true, force: true })
})

const harness = (options: { dbFile?: string; faults?: string[]; enabled?: boolean } = {}): Harness => {
  const dbFile = options.dbFile ?? join(directory, "store", "magic-context.db")
  const base = defaultConfig()
  const config: Config = { ...base, enabled: options.enabled ?? true, database: { ...base.database, path: dbFile } }
  const hostLines: string[] = []
  const errors = createErrorLog({ now: () => 1_000, hostLog: (line) => hostLines.push(line) })
  const runtime = createHostRuntime({
    config,
    configDiagnostics: [],
    errors,
    faults: new Set(options.faults ?? []),
    env: {},
    now: () => 1_000,
  })
  let loads = 0
  const loadProviderLimits = (): Promise<void> => {
    loads += 1
    return Promise.resolve()
  }
  const scheduled: string[] = []
  const historian = {
    schedule: (sessionId: string): Promise<void> => {
      scheduled.push(sessionId)
      return Promise.resolve()
    },
    isHistorianSession: (sessionId: string): boolean => sessionId === "ses_historian_child",
    forget: (): void => undefined,
  }
  const hooks = createHooks({
    runtime,
    projectId: "proj",
    directory: "/work",
    loadProviderLimits,
    historian,
    listMessages: () => Promise.resolve([]),
  })
  const created = { hooks, runtime, errors, hostLines, dbFile, providerLoads: () => loads, scheduled }
  harnesses.push(created)
  return created
}

/** A path where a directory stands, so SQLite cannot open it. */
const directoryInsteadOfStore = (dir: string): Promise<string> => {
  const path = join(dir, "is-a-directory")
  mkdirSync(path)
  return Promise.resolve(path)
}

/** A store whose schema version is newer than this code understands. */
const storeFromTheFuture = async (dir: string): Promise<string> => {
  const path = join(dir, "future.db")
  const db = await openDatabase(path)
  db.exec("PRAGMA user_version = 99")
  db.close()
  return path
}

const transform = async (hooks: Hooks, messages: HostMessage[]): Promise<HostMessage[]> => {
  const hook = hooks["experimental.chat.messages.transform"]
  if (!hook) throw new Error("transform hook missing")
  await hook({}, { messages: asOpenCodeMessages(messages) })
  return messages
}

/** The system prompt after the system transform hook for the session. */
const systemPrompt = async (hooks: Hooks, sessionID: string | undefined = SESSION): Promise<string[]> => {
  const hook = hooks["experimental.chat.system.transform"]
  if (!hook) throw new Error("system hook missing")
  const output = { system: ["You are a coding agent."] }
  await hook(
    { sessionID, model: { providerID: "openai", id: "gpt-4o" } } as unknown as Parameters<typeof hook>[0],
    output,
  )
  return output.system
}

/** OpenCode's `chat.params` call for the session's model with the given limits. */
const chatParams = async (hooks: Hooks, limit: { context: number; output: number }): Promise<void> => {
  const hook = hooks["chat.params"]
  if (!hook) throw new Error("chat.params hook missing")
  const input = { sessionID: SESSION, agent: "build", model: { providerID: "openai", id: "gpt-4o", limit } }
  await hook(
    input as unknown as Parameters<typeof hook>[0],
    { temperature: 0, topP: 1, topK: 0, maxOutputTokens: undefined, options: {} },
  )
}

/** OpenCode's merged config, as the `config` hook hands it over. */
const hostConfig = async (hooks: Hooks, config: Record<string, unknown>): Promise<void> => {
  await hooks.config?.(config as Parameters<NonNullable<Hooks["config"]>>[0])
}

const complete = async (hooks: Hooks, body: string): Promise<string> => {
  const hook = hooks["experimental.text.complete"]
  if (!hook) throw new Error("text hook missing")
  const output = { text: body }
  await hook({ sessionID: SESSION, messageID: "msg_003", partID: "prt_x" }, output)
  return output.text
}

describe("createHooks", () => {
  describe("experimental.chat.messages.transform", () => {
    it("writes the tags into OpenCode's messages in place and stores the session", async () => {
      const { hooks, runtime, dbFile } = harness()
      const messages = session()
      const output = { messages: asOpenCodeMessages(messages) }
      const hook = hooks["experimental.chat.messages.transform"]
      await hook?.({}, output)
      expect(output.messages).toBe(messages)
      expect(visibleText(partById(messages, "u1"))).toBe("§1§ read a.txt")
      expect(messages[0]?.parts.map((part) => part.id)).toEqual(["u1", "f1-tag", "f1"])
      expect(visibleText(partById(messages, "a1"))).toBe("§3§ reading")
      expect(visibleText(partById(messages, "t1"))).toBe("§4§ §5§ contents")
      expect(existsSync(dbFile)).toBe(true)
      const db = await runtime.database()
      // A pass that reduces nothing leaves its raw rows and its record to a turn of the loop after the hook returned.
      expect(countSessionRows(db, SESSION)).toEqual({ messages: 0, parts: 0, tags: 0, passes: 0 })
      await loopTurn()
      expect(countSessionRows(db, SESSION)).toEqual({ messages: 2, parts: 4, tags: 4, passes: 1 })
      // Stored as OpenCode sent them, not as the hook rewrote them since.
      const stored = db.prepare("SELECT content_json FROM parts WHERE session_id = ? AND id = ?").get([SESSION, "u1"])
      expect(JSON.parse(String(stored?.["content_json"]))).toMatchObject({ text: "read a.txt" })
    })

    it("renders fresh copies of the same messages identically and stores nothing new", async () => {
      const { hooks, runtime } = harness()
      const first = await transform(hooks, session())
      const second = await transform(hooks, session())
      expect(JSON.stringify(second)).toBe(JSON.stringify(first))
      const db = await runtime.database()
      expect(countSessionRows(db, SESSION)).toEqual({ messages: 2, parts: 4, tags: 4, passes: 2 })
    })

    it("keeps the tags across a restart of the plugin", async () => {
      const first = harness()
      const before = await transform(first.hooks, session())
      await first.hooks.dispose?.()
      harnesses = harnesses.filter((entry) => entry !== first)
      const second = harness({ dbFile: first.dbFile })
      const after = await transform(second.hooks, session())
      expect(JSON.stringify(after)).toBe(JSON.stringify(before))
      expect(second.errors.recent()).toEqual([])
    })

    it("leaves the messages byte-identical and records the error when the pass fails", async () => {
      const { hooks, runtime, errors, hostLines } = harness({ faults: ["transform"] })
      const messages = session()
      const before = JSON.stringify(messages)
      await expect(transform(hooks, messages)).resolves.toBe(messages)
      expect(JSON.stringify(messages)).toBe(before)
      expect(errors.recent()).toHaveLength(1)
      expect(errors.recent()[0]).toMatchObject({
        hook: "experimental.chat.messages.transform",
        sessionId: SESSION,
        code: "fault_injected",
      })
      const db = await runtime.database()
      expect(listErrors(db)).toEqual([
        expect.objectContaining({ hook: "experimental.chat.messages.transform", code: "fault_injected" }),
      ])
      expect(hostLines).toEqual([expect.stringContaining("experimental.chat.messages.transform failed open")])
    })

    it.each([
      ["a directory", "db_open_failed", directoryInsteadOfStore],
      ["a store from a newer version", "db_from_future", storeFromTheFuture],
    ])("passes the messages through untouched when the store is %s", async (_name, code, makePath) => {
      const { hooks, errors } = harness({ dbFile: await makePath(directory) })
      for (let attempt = 0; attempt < 2; attempt += 1) {
        const messages = session()
        const before = JSON.stringify(messages)
        await expect(transform(hooks, messages)).resolves.toBe(messages)
        expect(JSON.stringify(messages)).toBe(before)
      }
      expect(errors.recent().map((entry) => entry.code)).toEqual([code, code])
    })

    it("does nothing and stores nothing when the plugin is disabled", async () => {
      const { hooks, errors, dbFile } = harness({ enabled: false })
      const messages = session()
      const before = JSON.stringify(messages)
      await transform(hooks, messages)
      expect(JSON.stringify(messages)).toBe(before)
      expect(await complete(hooks, "§1§ echo")).toBe("§1§ echo")
      expect(existsSync(dbFile)).toBe(false)
      expect(errors.recent()).toEqual([])
    })

    it("ignores an empty message list", async () => {
      const { hooks, errors, dbFile } = harness()
      await transform(hooks, [])
      expect(errors.recent()).toEqual([])
      expect(existsSync(dbFile)).toBe(false)
    })
  })

  describe("reduce surface visibility", () => {
    it("hides the tags from an agent whose permission denies ctx_reduce, while still storing and tagging", async () => {
      const { hooks, runtime } = harness()
      await hostConfig(hooks, { agent: { build: { permission: { ctx_reduce: "deny" } } } })
      const messages = await transform(hooks, session())
      expect(JSON.stringify(messages)).toBe(JSON.stringify(session()))
      await loopTurn()
      const db = await runtime.database()
      expect(countSessionRows(db, SESSION)).toEqual({ messages: 2, parts: 4, tags: 4, passes: 1 })
      expect(runtime.lastPass.get(SESSION)?.tagsVisible).toBe(false)
      expect(await systemPrompt(hooks)).toEqual(["You are a coding agent."])
    })

    it("shows the tags to another agent of the same config", async () => {
      const { hooks } = harness()
      await hostConfig(hooks, { agent: { plan: { permission: { ctx_reduce: "deny" } } } })
      const messages = await transform(hooks, session())
      expect(visibleText(partById(messages, "u1"))).toBe("§1§ read a.txt")
    })

    it("adds the reduce guidance to the system prompt only once a pass saw an agent with ctx_reduce", async () => {
      const { hooks } = harness()
      expect(await systemPrompt(hooks)).toEqual(["You are a coding agent."])
      await transform(hooks, session())
      expect(await systemPrompt(hooks)).toEqual(["You are a coding agent.", REDUCE_GUIDANCE])
      // A second system prompt without a main pass before it (a title or compaction request) gets none.
      expect(await systemPrompt(hooks)).toEqual(["You are a coding agent."])
      expect(await systemPrompt(hooks, "ses_other")).toEqual(["You are a coding agent."])
    })

    it("registers its tools only when the plugin is enabled", () => {
      expect(Object.keys(harness().hooks.tool ?? {})).toEqual(["ctx_reduce", "ctx_expand", "ctx_pin"])
      expect(harness({ enabled: false }).hooks.tool).toEqual({})
    })
  })

  describe("window and fixed prompt", () => {
    it("uses the limits chat.params reported for the model in the next pass's window", async () => {
      const { hooks, runtime, providerLoads } = harness()
      await chatParams(hooks, { context: 50_000, output: 8_000 })
      await transform(hooks, session())
      expect(runtime.lastPass.get(SESSION)?.window).toMatchObject({
        usableTokens: 42_000,
        contextTokens: 50_000,
        source: "host",
      })
      expect(providerLoads()).toBe(0)
    })

    it("caps the output reserve at 32,000 tokens as OpenCode does", async () => {
      const { hooks, runtime } = harness()
      await chatParams(hooks, { context: 200_000, output: 64_000 })
      await transform(hooks, session())
      expect(runtime.lastPass.get(SESSION)?.window).toMatchObject({ usableTokens: 168_000, outputReserve: 32_000 })
    })

    it("asks for the provider list and falls back to 128k when no limits are known", async () => {
      const { hooks, runtime, providerLoads } = harness()
      await transform(hooks, session())
      expect(providerLoads()).toBe(1)
      expect(runtime.lastPass.get(SESSION)?.window).toMatchObject({ usableTokens: 128_000 - 4_096, source: "fallback" })
    })

    it("counts the system prompt and the tool definitions as the next pass's fixed tokens", async () => {
      const { hooks, runtime } = harness()
      const pool = createTokenCounterPool()
      try {
        const o200k = pool.counterFor("o200k_base")
        await hooks["tool.definition"]?.(
          { toolID: "read" },
          { description: "Reads a file.", parameters: { type: "object" } },
        )
        // A title request's system prompt (no main pass before it) is not the session's fixed prompt.
        await systemPrompt(hooks)
        await transform(hooks, session())
        await loopTurn()
        const toolsOnly = o200k.count('read Reads a file. {"type":"object"}')
        const db = await runtime.database()
        expect(listPasses(db, SESSION)[0]?.detail["breakdown"]).toMatchObject({ fixed: toolsOnly })
        // The main step's system prompt follows its transform; the next pass counts it.
        await systemPrompt(hooks)
        await transform(hooks, session())
        await loopTurn()
        const [pass] = listPasses(db, SESSION)
        expect(pass?.detail["breakdown"]).toMatchObject({ fixed: o200k.count("You are a coding agent.") + toolsOnly })
      } finally {
        pool.dispose()
      }
    })
  })

  describe("experimental.text.complete", () => {
    it("strips tag echoes from the model's text", async () => {
      const { hooks } = harness()
      expect(await complete(hooks, "§3§ Done. I read `§4§` and [§5§] as asked (see § 4.2).")).toBe(
        "Done. I read and as asked (see § 4.2).",
      )
      expect(await complete(hooks, "no tags here")).toBe("no tags here")
    })

    it("leaves the text as it was when stripping fails", async () => {
      const { hooks, errors } = harness({ faults: ["text"] })
      expect(await complete(hooks, "§3§ Done.")).toBe("§3§ Done.")
      expect(errors.recent()[0]).toMatchObject({
        hook: "experimental.text.complete",
        sessionId: SESSION,
        code: "fault_injected",
      })
    })
  })

  describe("experimental.session.compacting", () => {
    it("marks the next pass of that session as a compaction pass, once", async () => {
      const { hooks, runtime } = harness()
      await transform(hooks, session())
      await hooks["experimental.session.compacting"]?.({ sessionID: SESSION }, { context: [] })
      await transform(hooks, session())
      await transform(hooks, session())
      await loopTurn()
      const db = await runtime.database()
      expect(listPasses(db, SESSION).reverse().map((pass) => [pass.seq, pass.trigger])).toEqual([
        [1, "transform"],
        [2, "compaction"],
        [3, "transform"],
      ])
    })

    it("does not mark the passes of other sessions", async () => {
      const { hooks, runtime } = harness()
      await hooks["experimental.session.compacting"]?.({ sessionID: "ses_other" }, { context: [] })
      await transform(hooks, session())
      await loopTurn()
      const db = await runtime.database()
      expect(listPasses(db, SESSION).map((pass) => pass.trigger)).toEqual(["transform"])
    })
  })
})
