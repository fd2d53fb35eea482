import type { ToolContext } from "@opencode-ai/plugin"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { defaultConfig, type Config } from "../../src/config/schema.js"
import { createHistoryPlanner } from "../../src/pass/history-planner.js"
import { runPass } from "../../src/pass/run-pass.js"
import type { SessionState } from "../../src/session/session-state.js"
import { MAX_EXPAND_CHARS } from "../../src/host/expand-call.js"
import { EXPAND_TOOL_DESCRIPTION } from "../../src/reduce/agent-texts.js"
import { createErrorLog, type ErrorLog } from "../../src/host/error-log.js"
import { createHostRuntime, type HostRuntime } from "../../src/host/host-runtime.js"
import { MAX_TOOL_ANSWER_CHARS, quoteArgument } from "../../src/reduce/answer-bounds.js"
import { fixedWindow } from "../../src/pressure/model-window.js"
import { markTagsDropped } from "../../src/store/applied-state-repository.js"
import { listCompartments } from "../../src/store/compartment-repository.js"
import type { Database } from "../../src/store/driver.js"
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
import { createExpandTool } from "../../src/plugin/context-tools.js"
import { passCachesOf } from "../helpers/pass-caches-of.js"

/** Nothing is ever pressured; 300 protected words hold only the newest message. */
const WINDOW = fixedWindow({ usableTokens: 1_000_000, config: { ...defaultConfig(), protected_tokens: 300 } })

/**
 * Tags per turn N (1-based): 3N-2 the user's request, 3N-1 the assistant's text, 3N the read of src/modN.ts.
 * Turn 2's read is huge (30,000 characters) when `huge` is set.
 */
function session(sessionID: string, count: number, options: { huge?: boolean } = {}): HostMessage[] {
  return Array.from({ length: count }, (_, index) => {
    const turn = index + 1
    const output = options.huge === true && turn === 2 ? "x".repeat(30_000) : fillerWords(300)
    return [
      userMessage({
        id: `u${turn}`,
        sessionID,
        created: turn * 100,
        parts: [text(`${sessionID}-u${turn}`, `Update src/mod${turn}.ts next.`)],
      }),
      assistantMessage({
        id: `a${turn}`,
        sessionID,
        created: turn * 100 + 1,
        parts: [
          text(`${sessionID}-a${turn}`, `I'll use a lookup table in src/mod${turn}.ts because it keeps the API.`),
          tool(`${sessionID}-r${turn}`, "read", completed({ filePath: `src/mod${turn}.ts` }, output)),
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
  const config: Config = { ...defaultConfig(), database: { ...defaultConfig().database, path: join(dirs.make("expand"), "store.db") } }
  runtime = createHostRuntime({ config, configDiagnostics: [], errors, faults: new Set(), env: {}, now: () => 1_000 })
  db = await runtime.database()
})

afterAll(() => {
  runtime.dispose()
  dirs.cleanup()
})

/** A new session with one pass (and its planner) behind it, as the transform hook leaves it for the tool. */
async function prepared(
  turns: number,
  options: { huge?: boolean } = {},
): Promise<{ sessionId: string; state: SessionState }> {
  sessions += 1
  const sessionId = `ses_expand_${sessions}`
  const registry = await runtime.sessions()
  const info = { id: sessionId, source: "opencode" as const, projectId: null, directory: null, title: null }
  const state = registry.stateFor(info, wordCounter)
  const history = createHistoryPlanner({
    db,
    sessionId,
    counter: wordCounter,
    policy: "default",
    expanded: runtime.expanded,
  })
  registry.held(sessionId)?.usePlanner(history)
  runPass({
    db,
    state,
    caches: passCachesOf(state),
    messages: session(sessionId, turns, options),
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
  return { sessionId, state }
}

const call = async (target: HostRuntime, sessionId: string, args: Record<string, unknown>): Promise<string> => {
  const context = { sessionID: sessionId, messageID: "m", agent: "build", directory: "/", worktree: "/" } as ToolContext
  const answer = await createExpandTool(target).execute(args as { target: string }, context)
  if (typeof answer !== "string") throw new Error("ctx_expand answers in plain text")
  return answer
}

const expand = (sessionId: string, target: unknown): Promise<string> => call(runtime, sessionId, { target })

describe("createExpandTool", () => {
  it("describes itself and takes one plain JSON Schema string argument", () => {
    const definition = createExpandTool(runtime)
    expect(definition.description).toBe(EXPAND_TOOL_DESCRIPTION)
    expect(definition.args).toEqual({
      target: { type: "string", description: 'An episode id like "c12", or a tag like "§42§"' },
    })
  })

  it("returns an episode at full detail and marks it relevant for the next history update", async () => {
    const { sessionId } = await prepared(4)
    const compartments = listCompartments(db, sessionId)
    const ids = [1, 2, 3].map((index) => `${sessionId}#c${index}`)
    expect(compartments.map((compartment) => compartment.id)).toEqual(ids)
    const full = compartments[1]?.representations.find((representation) => representation.tier === "full")?.content
    expect(full).toMatch(/^\[c2 §4§–§6§\]\n/)
    expect(await expand(sessionId, "c2")).toBe(full)
    expect(runtime.expanded.has(`${sessionId}#c2`)).toBe(true)
    expect(runtime.expanded.has(`${sessionId}#c1`)).toBe(false)
    const third = compartments[2]?.representations.find((representation) => representation.tier === "full")
    expect(await expand(sessionId, " C3 ")).toBe(third?.content)
  })

  it("tells apart c1 and c11", async () => {
    const { sessionId } = await prepared(12)
    const answer = await expand(sessionId, "c1")
    expect(answer.startsWith("[c1 §1§–§3§]")).toBe(true)
    expect((await expand(sessionId, "c11")).startsWith("[c11 §31§–§33§]")).toBe(true)
  })

  it("returns a tag's original content", async () => {
    const { sessionId } = await prepared(2)
    expect(await expand(sessionId, "§1§")).toBe("§1§:\nUpdate src/mod1.ts next.")
    expect(await expand(sessionId, "3")).toBe(`§3§:\nread {"filePath":"src/mod1.ts"}\n${fillerWords(300)}`)
  })

  it("reads adjacent tags as two, never as one larger tag, and asks for one target", async () => {
    const { sessionId } = await prepared(2)
    expect(await expand(sessionId, "§1§§3§")).toBe('"§1§§3§" names several tags; ctx_expand takes one target at a time.')
    expect(await expand(sessionId, "1§3§")).toBe('"1§3§" names several tags; ctx_expand takes one target at a time.')
  })

  it("returns a dropped tag's stored original and says it was dropped", async () => {
    const { sessionId, state } = await prepared(2)
    markTagsDropped(db, sessionId, [{ tag: 3, reason: "reduce", supersededBy: null }], 2)
    const tag = state.tagsByNumber.get(3)
    if (!tag) throw new Error("no tag 3")
    tag.status = "dropped"
    tag.droppedReason = "reduce"
    expect(await expand(sessionId, "§3§")).toBe(
      `§3§ (dropped from the context; this is the stored original):\nread {"filePath":"src/mod1.ts"}\n${fillerWords(300)}`,
    )
  })

  it("bounds the answer and says how much is not shown", async () => {
    const { sessionId } = await prepared(3, { huge: true })
    const answer = await expand(sessionId, "6")
    const full = `§6§:\nread {"filePath":"src/mod2.ts"}\n${"x".repeat(30_000)}`
    const hidden = full.length - MAX_EXPAND_CHARS
    expect(answer).toBe(`${full.slice(0, MAX_EXPAND_CHARS)}\n[... ${hidden} more characters not shown]`)
    expect(MAX_EXPAND_CHARS).toBe(24_000)
  })

  it.each<[string, string, (highest: number) => string]>([
    ["an unknown episode", "c9", () => "No episode c9 in this session (episodes run from c1 to c2)."],
    ["an unknown tag", "§99§", (highest) => `No tag §99§ in this session (tags run from 1 to ${highest}).`],
  ])("answers %s with the session's range", async (_name, target, expected) => {
    const { sessionId, state } = await prepared(3)
    expect(await expand(sessionId, target)).toBe(expected(state.nextTag - 1))
    expect(state.nextTag - 1).toBe(9)
  })

  it("says when the session has no episodes or tags yet", async () => {
    expect(await expand("ses_expand_empty", "c1")).toBe(
      "No episode c1 in this session (this session has no episodes yet).",
    )
    expect(await expand("ses_expand_empty", "1")).toBe("No tag §1§ in this session (no tags yet).")
  })

  it.each<[string, unknown, string]>([
    ["no argument", undefined, 'target must be an episode id like "c12" or a tag like "§42§".'],
    ["a number", 42, 'target must be an episode id like "c12" or a tag like "§42§".'],
    ["an empty string", "  ", 'target must be an episode id like "c12" or a tag like "§42§".'],
    ["a word", "lexer", '"lexer" is neither an episode id like "c12" nor a tag like "§42§".'],
    ["a range", "3-5", '"3-5" is neither an episode id like "c12" nor a tag like "§42§".'],
    [
      "a long word",
      "x".repeat(5_000),
      `${quoteArgument("x".repeat(5_000))} is neither an episode id like "c12" nor a tag like "§42§".`,
    ],
    [
      "a long list of tags",
      "§1§".repeat(3_000),
      `${quoteArgument("§1§".repeat(3_000))} names several tags; ctx_expand takes one target at a time.`,
    ],
    [
      "10 MB",
      "c".repeat(10 * 1024 * 1024),
      'target is 10,485,760 characters long: give one episode id like "c12" or one tag like "§42§".',
    ],
  ])("answers malformed input (%s) without throwing", async (_name, target, expected) => {
    const { sessionId } = await prepared(2)
    const answer = await expand(sessionId, target)
    expect(answer).toBe(expected)
    expect(answer.length).toBeLessThanOrEqual(MAX_TOOL_ANSWER_CHARS)
  })

  it.each<[string, string, string]>([
    ["an episode past the last", `c${"9".repeat(5_000)}`, `No episode ${quoteArgument(`c${"9".repeat(5_000)}`)} in this session`],
    ["a tag past the last", "9".repeat(5_000), `No tag ${quoteArgument("9".repeat(5_000))} in this session`],
  ])("quotes only the head of %s with thousands of digits", async (_name, target, start) => {
    const { sessionId } = await prepared(2)
    const answer = await expand(sessionId, target)
    expect(answer.startsWith(start)).toBe(true)
    expect(answer.length).toBeLessThanOrEqual(MAX_TOOL_ANSWER_CHARS)
  })

  it.each(["§ 3§", "3 §", "§ 3 §"])("reads %j, spaces inside the signs, as tag 3", async (target) => {
    const { sessionId } = await prepared(2)
    expect(await expand(sessionId, target)).toBe(await expand(sessionId, "3"))
  })

  it("names a list with spaces after its commas as several tags", async () => {
    const { sessionId } = await prepared(2)
    expect(await expand(sessionId, "1, 3")).toBe('"1, 3" names several tags; ctx_expand takes one target at a time.')
  })

  it("reads leading zeros in an episode id as in a tag: c007 is c7, 007 is 7", async () => {
    const { sessionId } = await prepared(8)
    expect(await expand(sessionId, "c007")).toBe(await expand(sessionId, "c7"))
    expect(await expand(sessionId, "c007")).toMatch(/^\[c7 /)
    expect(await expand(sessionId, "007")).toBe(await expand(sessionId, "7"))
  })

  it("answers an internal error plainly and records it", async () => {
    const brokenErrors = createErrorLog({ now: () => 5_000, hostLog: () => undefined })
    // A file name with a NUL byte cannot be opened: every use of the store fails.
    const path = join(dirs.make("broken"), "missing", "deeper", "\0.db")
    const config: Config = { ...defaultConfig(), database: { ...defaultConfig().database, path } }
    const broken = createHostRuntime({
      config,
      configDiagnostics: [],
      errors: brokenErrors,
      faults: new Set(),
      env: {},
      now: () => 1,
    })
    try {
      expect(await call(broken, "ses_broken", { target: "c1" })).toBe(
        "ctx_expand could not run because of an internal error in magic-context (recorded).",
      )
      expect(brokenErrors.recent()[0]).toMatchObject({ hook: "tool.ctx_expand", sessionId: "ses_broken" })
    } finally {
      broken.dispose()
    }
  })
})
