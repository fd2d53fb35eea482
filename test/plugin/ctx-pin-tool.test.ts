import { createMessageMemo } from "../../src/session/message-memo.js"
import type { ToolContext } from "@opencode-ai/plugin"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { defaultConfig, type Config } from "../../src/config/schema.js"
import { createHistoryPlanner } from "../../src/pass/history-planner.js"
import { runPass, type PassResult } from "../../src/pass/run-pass.js"
import type { SessionState } from "../../src/session/session-state.js"
import { MAX_PINS_PER_CALL } from "../../src/host/pin-call.js"
import { MAX_PIN_CHARS, PIN_TOOL_DESCRIPTION } from "../../src/reduce/agent-texts.js"
import { MAX_TOOL_ANSWER_CHARS } from "../../src/reduce/answer-bounds.js"
import { createErrorLog, type ErrorLog } from "../../src/host/error-log.js"
import { createHostRuntime, type HostRuntime } from "../../src/host/host-runtime.js"
import { fixedWindow } from "../../src/pressure/model-window.js"
import { markTagsDropped } from "../../src/store/applied-state-repository.js"
import type { Database } from "../../src/store/driver.js"
import { listErrors } from "../../src/store/error-repository.js"
import { listPins } from "../../src/store/pin-repository.js"
import type { HostMessage } from "../../src/transcript/host-message.js"
import {

  assistantMessage,
  completed,
  fillerWords,
  fixedClock,
  text,
  tool,
  userMessage,
  wordCounter,
} from "../helpers/host-messages.js"
import { createTempDirs } from "../helpers/temp-dirs.js"
import { createPinTool } from "../../src/plugin/context-tools.js"
import { passCachesOf } from "../helpers/pass-caches-of.js"

/** Nothing is ever pressured; 300 protected words hold only the newest message. */
const WINDOW = fixedWindow({ usableTokens: 1_000_000, config: { ...defaultConfig(), protected_tokens: 300 } })

/**
 * Tags per turn N (1-based): 3N-2 the user's request, 3N-1 the assistant's text, 3N the read of src/modN.ts (50,000
 * characters in turn `hugeRead`).
 */
function session(sessionID: string, count: number, hugeRead?: number): HostMessage[] {
  return Array.from({ length: count }, (_, index) => {
    const turn = index + 1
    return [
      userMessage({
        id: `u${turn}`,
        sessionID,
        created: turn * 100,
        parts: [text(`${sessionID}-u${turn}`, `Update src/mod${turn}.ts next. Keep port ${8_000 + turn} open.`)],
      }),
      assistantMessage({
        id: `a${turn}`,
        sessionID,
        created: turn * 100 + 1,
        parts: [
          text(`${sessionID}-a${turn}`, `Reading src/mod${turn}.ts.`),
          tool(
            `${sessionID}-r${turn}`,
            "read",
            completed({ filePath: `src/mod${turn}.ts` }, turn === hugeRead ? "y".repeat(50_000) : fillerWords(300)),
          ),
        ],
      }),
    ]
  }).flat()
}

const dirs = createTempDirs()
let runtime: HostRuntime
let errors: ErrorLog
let db: Database
let sessions = 0

beforeAll(async () => {
  errors = createErrorLog({ now: () => 5_000, hostLog: () => undefined })
  const config: Config = { ...defaultConfig(), database: { ...defaultConfig().database, path: join(dirs.make("pin"), "store.db") } }
  runtime = createHostRuntime({ config, configDiagnostics: [], errors, faults: new Set(), env: {}, now: () => 1_000 })
  db = await runtime.database()
})

afterAll(() => {
  runtime.dispose()
  dirs.cleanup()
})

/** A new session with one pass behind it, as the transform hook leaves it for the tool. */
type Prepared = { sessionId: string; state: SessionState; messages: HostMessage[]; result: PassResult }

async function prepared(turns = 3, options: { hugeRead?: number } = {}): Promise<Prepared> {
  sessions += 1
  const sessionId = `ses_pin_${sessions}`
  const registry = await runtime.sessions()
  const info = { id: sessionId, source: "opencode" as const, projectId: null, directory: null, title: null }
  const state = registry.stateFor(info, wordCounter)
  const history = createHistoryPlanner({ db, sessionId, counter: wordCounter, policy: "default" })
  registry.held(sessionId)?.usePlanner(history)
  const messages = session(sessionId, turns, options.hugeRead)
  const result = runPass({
    db,
    state,
    caches: passCachesOf(state),
    messages,
    counter: wordCounter,
    clock: fixedClock,
    trigger: "transform",
    tagsVisible: true,
    window: WINDOW,
    fixedTokens: 0,
    now: turns * 100 + 500,
    smartDrops: false,
    history,
  })
  return { sessionId, state, messages, result }
}

const call = async (target: HostRuntime, sessionId: string, args: Record<string, unknown>): Promise<string> => {
  const context = { sessionID: sessionId, messageID: "m", agent: "build", directory: "/", worktree: "/" } as ToolContext
  const answer = await createPinTool(target).execute(args as { tags: string }, context)
  if (typeof answer !== "string") throw new Error("ctx_pin answers in plain text")
  return answer
}

const pin = (sessionId: string, tags: unknown): Promise<string> => call(runtime, sessionId, { tags })

const pinRows = (sessionId: string) =>
  db
    .prepare("SELECT tag, text, pinned_by, created_at > 0 AS stamped FROM pins WHERE session_id = ? ORDER BY tag")
    .all([sessionId])

/** The answer line of a tag pinned now. */
const pinnedLine = (tag: number, text: string): string =>
  `§${tag}§ pinned (${text.length} characters, kept verbatim).`

describe("createPinTool", () => {
  it("describes itself and takes one plain JSON Schema string argument", () => {
    const definition = createPinTool(runtime)
    expect(definition.description).toBe(PIN_TOOL_DESCRIPTION)
    expect(definition.args).toEqual({ tags: { type: "string", description: 'Tags to pin, e.g. "12" or "12,15"' } })
  })

  it("pins each named tag's content verbatim and says so", async () => {
    const { sessionId } = await prepared()
    const read = `read {"filePath":"src/mod1.ts"}\n${fillerWords(300)}`
    expect(await pin(sessionId, "§1§, 3")).toBe(
      [pinnedLine(1, "Update src/mod1.ts next. Keep port 8001 open."), pinnedLine(3, read)].join("\n"),
    )
    expect(pinRows(sessionId)).toEqual([
      { tag: 1, text: "Update src/mod1.ts next. Keep port 8001 open.", pinned_by: "agent", stamped: 1 },
      { tag: 3, text: read, pinned_by: "agent", stamped: 1 },
    ])
  })

  it("pins a range", async () => {
    const { sessionId } = await prepared()
    await pin(sessionId, "4-6")
    expect(listPins(db, sessionId).map((stored) => stored.tag)).toEqual([4, 5, 6])
  })

  it("keeps the first pin of a tag and says it was already pinned", async () => {
    const { sessionId } = await prepared()
    await pin(sessionId, "4")
    expect(await pin(sessionId, "4,7")).toBe(
      ["§4§ was already pinned.", pinnedLine(7, "Update src/mod3.ts next. Keep port 8003 open.")].join("\n"),
    )
    expect(listPins(db, sessionId).map((stored) => stored.tag)).toEqual([4, 7])
  })

  it("pins a dropped tag's stored original", async () => {
    const { sessionId, state } = await prepared()
    markTagsDropped(db, sessionId, [{ tag: 6, reason: "reclaim", supersededBy: null }], 2)
    const tag = state.tagsByNumber.get(6)
    if (!tag) throw new Error("no tag 6")
    tag.status = "dropped"
    await pin(sessionId, "6")
    const original = `read {"filePath":"src/mod2.ts"}\n${fillerWords(300)}`
    expect(listPins(db, sessionId)).toEqual([{ tag: 6, text: original, pinnedBy: "agent" }])
  })

  it("answers an unknown tag and still pins the others", async () => {
    const { sessionId } = await prepared()
    expect(await pin(sessionId, "99,2")).toBe(
      [pinnedLine(2, "Reading src/mod1.ts."), "§99§: no such tag in this session."].join("\n"),
    )
    expect(listPins(db, sessionId).map((stored) => stored.tag)).toEqual([2])
  })

  it.each<[string, string, boolean]>([
    ["exactly the limit", `1-${MAX_PINS_PER_CALL}`, true],
    ["one over the limit", `1-${MAX_PINS_PER_CALL + 1}`, false],
  ])("pins %s of tags per call", async (_name, tags, accepted) => {
    const { sessionId } = await prepared(4)
    const answer = await pin(sessionId, tags)
    if (accepted) {
      expect(answer.split("\n")).toHaveLength(MAX_PINS_PER_CALL)
      expect(listPins(db, sessionId)).toHaveLength(MAX_PINS_PER_CALL)
      return
    }
    expect(answer).toBe(`Nothing was pinned: one call pins at most ${MAX_PINS_PER_CALL} tags.`)
    expect(listPins(db, sessionId)).toEqual([])
  })

  it.each<[string, unknown, string]>([
    ["no argument", undefined, 'tags must be a string like "3-5,8", got nothing'],
    ["a number", 12, 'tags must be a string like "3-5,8", got a number'],
    ["a word", "abc", '"abc" is not a tag number or a range like 3-5'],
    ["a reversed range", "5-3", '"5-3" is a reversed range; write 3-5'],
    ["zero", "0", '"0": tags start at 1'],
    ["nothing", "  ", 'tags is empty: name the tags to pin, like "3-5,8,12-15"'],
    ["a trailing comma", "3,", 'tags "3," has an empty item between commas'],
    ["more than 500 tags", "1-300,301-600", "tags names more than 500 tags in total; one call may name at most 500"],
    [
      "10 MB",
      "1,".repeat(5 * 1024 * 1024),
      "tags is 10,485,760 characters long; one call takes at most 10,000 characters (at most 500 tags, like " +
        '"3-5,8,12-15")',
    ],
  ])("answers malformed input (%s) without pinning anything", async (_name, tags, error) => {
    const { sessionId } = await prepared()
    expect(await pin(sessionId, tags)).toBe(`Nothing was pinned: ${error}.`)
    expect(listPins(db, sessionId)).toEqual([])
  })

  it("refuses to pin an item longer than MAX_PIN_CHARS, says why, and pins the others", async () => {
    const { sessionId } = await prepared(3, { hugeRead: 2 })
    const answer = await pin(sessionId, "1,6")
    expect(answer).toBe(
      [
        pinnedLine(1, "Update src/mod1.ts next. Keep port 8001 open."),
        `§6§ was not pinned: it holds ${`read {"filePath":"src/mod2.ts"}\n${"y".repeat(50_000)}`.length.toLocaleString("en-US")} characters and a pin keeps at most ${MAX_PIN_CHARS.toLocaleString("en-US")} ` +
          "verbatim. Quote the lines that matter in your reply and pin that message's tag.",
      ].join("\n"),
    )
    expect(answer.length).toBeLessThanOrEqual(MAX_TOOL_ANSWER_CHARS)
    expect(listPins(db, sessionId).map((stored) => stored.tag)).toEqual([1])
  })

  it("puts a pin into the pinned ledger once its message is folded into history", async () => {
    const { sessionId, state, messages, result } = await prepared(4)
    await pin(sessionId, "3,12")
    const planner = runtime.plannerOf(sessionId)
    const ready = planner?.prepare({ memo: createMessageMemo(), 
      messages,
      view: result.view,
      state,
      pass: 50,
      now: 1,
      fold: true,
      budgetTokens: 10_000,
      pinBudgetTokens: 10_000,
    })
    // Turns 1-3 are folded (through seq 6); §12§ is the newest read, still live.
    expect(ready?.foldThroughSeq).toBe(6)
    expect(ready?.text).toContain(`- §3§ read {"filePath":"src/mod1.ts"}\n${fillerWords(300)}`)
    expect(ready?.text).not.toContain("src/mod4.ts\"}")
  })

  it("answers an internal error plainly, pins nothing and records the error", async () => {
    const { sessionId } = await prepared()
    const broken = { ...runtime, sessions: () => Promise.reject(new Error("registry exploded")) } as HostRuntime
    expect(await call(broken, sessionId, { tags: "1" })).toBe(
      "ctx_pin could not run because of an internal error in magic-context (recorded); nothing was pinned.",
    )
    expect(errors.recent()[0]).toMatchObject({ hook: "tool.ctx_pin", sessionId, message: "registry exploded" })
    expect(listErrors(db, { sessionId })).toEqual([
      expect.objectContaining({ hook: "tool.ctx_pin", message: "registry exploded" }),
    ])
    expect(listPins(db, sessionId)).toEqual([])
  })
})
