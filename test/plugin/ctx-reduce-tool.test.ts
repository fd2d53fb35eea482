import type { ToolContext } from "@opencode-ai/plugin"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { defaultConfig } from "../../src/config/schema.js"
import { runPass } from "../../src/pass/run-pass.js"
import type { SessionState } from "../../src/session/session-state.js"
import { REDUCE_TOOL_DESCRIPTION } from "../../src/reduce/agent-texts.js"
import { createErrorLog, type ErrorLog } from "../../src/host/error-log.js"
import {

  clipText,
  MAX_TOOL_ANSWER_CHARS,
  quoteArgument,
  STORED_ARGUMENT_CHARS,
} from "../../src/reduce/answer-bounds.js"
import { createHostRuntime, type LastPass, type HostRuntime } from "../../src/host/host-runtime.js"
import { usagePercent } from "../../src/pressure/bands.js"
import { fixedWindow } from "../../src/pressure/model-window.js"
import type { Database } from "../../src/store/driver.js"
import { listErrors } from "../../src/store/error-repository.js"
import { statement } from "../../src/store/statements.js"
import type { HostMessage } from "../../src/transcript/host-message.js"
import { assistantMessage, completed, fixedClock, running, text, tool, userMessage } from "../helpers/host-messages.js"
import { tokCounter, toks } from "../helpers/pure-session.js"
import { createTempDirs } from "../helpers/temp-dirs.js"
import { createReduceTool } from "../../src/plugin/context-tools.js"
import { passCachesOf } from "../helpers/pass-caches-of.js"

/** 100k usable, a 900-token protected window: only the newest message (a 900-token grep) is protected. */
const WINDOW = fixedWindow({ usableTokens: 100_000, config: { ...defaultConfig(), protected_tokens: 900 } })

/**
 * Tags: 1 the user's message, 2 read (2,000), 3 read (1,500), 4 read (300), 5 bash still running,
 * 6 grep (900, protected).
 */
const session = (sessionID: string): HostMessage[] => [
  userMessage({ id: "u1", sessionID, created: 1_000, parts: [text(`${sessionID}-u1`, toks(50))] }),
  assistantMessage({
    id: "a1",
    sessionID,
    created: 2_000,
    parts: [
      tool(`${sessionID}-r1`, "read", completed({ path: "a" }, toks(2_000))),
      tool(`${sessionID}-r2`, "read", completed({ path: "b" }, toks(1_500))),
      tool(`${sessionID}-r3`, "read", completed({ path: "c" }, toks(300))),
      tool(`${sessionID}-b1`, "bash", running({ command: "make" })),
    ],
  }),
  assistantMessage({
    id: "a2",
    sessionID,
    created: 3_000,
    parts: [tool(`${sessionID}-g1`, "grep", completed({ pattern: "x" }, toks(900)))],
  }),
]

const dirs = createTempDirs()
let runtime: HostRuntime
let errors: ErrorLog
let db: Database
let counter = 0

beforeAll(async () => {
  errors = createErrorLog({ now: () => 5_000, hostLog: () => undefined })
  const config = { ...defaultConfig(), database: { ...defaultConfig().database, path: join(dirs.make("reduce"), "store.db") } }
  runtime = createHostRuntime({ config, configDiagnostics: [], errors, faults: new Set(), env: {}, now: () => 1_000 })
  db = await runtime.database()
})

afterAll(() => {
  runtime.dispose()
  dirs.cleanup()
})

/** A new session with one pass behind it, as the transform hook leaves it for the tool. */
async function prepared(): Promise<{ sessionId: string; state: SessionState; last: LastPass }> {
  counter += 1
  const sessionId = `ses_reduce_${counter}`
  const registry = await runtime.sessions()
  const state = registry.stateFor(
    { id: sessionId, source: "opencode", projectId: null, directory: null, title: null },
    tokCounter,
  )
  const result = runPass({
    db,
    state,
    caches: passCachesOf(state),
    messages: session(sessionId),
    counter: tokCounter,
    clock: fixedClock,
    trigger: "transform",
    tagsVisible: true,
    window: WINDOW,
    fixedTokens: 0,
    now: 4_000,
    smartDrops: false,
  })
  const last: LastPass = {
    view: result.view,
    window: WINDOW,
    usagePercent: usagePercent(result.usageAfter, WINDOW.usableTokens),
    tagsVisible: true,
    turnMessageId: "u1",
    passSeq: result.seq,
  }
  runtime.lastPass.set(sessionId, last)
  return { sessionId, state, last }
}

const call = async (sessionId: string, args: Record<string, unknown>): Promise<string> => {
  const context = { sessionID: sessionId, messageID: "m", agent: "build", directory: "/", worktree: "/" } as ToolContext
  const answer = await createReduceTool(runtime).execute(args as { drop: string }, context)
  if (typeof answer !== "string") throw new Error("ctx_reduce answers in plain text")
  return answer
}

const reduceCalls = (sessionId: string) =>
  statement(
    db,
    "SELECT turn_message_id, drop_argument, queued, deferred, rejected, refused_reason FROM reduce_calls " +
      "WHERE session_id = ? ORDER BY id",
  ).all([sessionId])
const operations = (sessionId: string) =>
  statement(db, "SELECT kind, tag, status, queued_pass FROM operations WHERE session_id = ? ORDER BY id").all([
    sessionId,
  ])

const LAND_BELOW = "usage is 5% of the window: they land at the next execute pass (at 65% or after 5 idle minutes)."

describe("createReduceTool", () => {
  it("describes itself and takes one plain JSON Schema string argument", () => {
    const definition = createReduceTool(runtime)
    expect(definition.description).toBe(REDUCE_TOOL_DESCRIPTION)
    expect(definition.args).toEqual({
      drop: { type: "string", description: 'Tags to drop: numbers and inclusive ranges, e.g. "3-5,8,12-15"' },
    })
  })

  it("queues, defers and rejects the named tags and says exactly what happened", async () => {
    const { sessionId, state, last } = await prepared()
    expect(last.usagePercent).toBeCloseTo(4.75, 6)
    const answer = await call(sessionId, { drop: "2-5,6,99,1" })
    expect(answer).toBe(
      [
        `Queued 3 drops (§2-4§, ~3,800 tokens); ${LAND_BELOW}`,
        "Deferred 1 drop (§6§, ~900 tokens): still in the protected recent window; they land once newer work has " +
          "moved the window past them.",
        "Rejected §1§: the user's own message: user messages are never dropped.",
        "Rejected §5§: its tool call is still waiting for its result.",
        "Rejected §99§: no such tag in this session (tags in this session run from 1 to 6).",
      ].join("\n"),
    )
    expect(operations(sessionId)).toEqual(
      [2, 3, 4, 6].map((tag) => ({ kind: "drop", tag, status: "queued", queued_pass: last.passSeq })),
    )
    expect(reduceCalls(sessionId)).toEqual([
      { turn_message_id: "u1", drop_argument: "2-5,6,99,1", queued: 3, deferred: 1, rejected: 3, refused_reason: null },
    ])
    expect([...state.queued.keys()]).toEqual([2, 3, 4, 6])
    expect(state.applied.lastReducePass).toBe(last.passSeq)
    expect(statement(db, "SELECT last_reduce_pass FROM session_state WHERE session_id = ?").get([sessionId])).toEqual({
      last_reduce_pass: last.passSeq,
    })

    expect(await call(sessionId, { drop: "2,3" })).toBe(["Rejected §2-3§: already queued.", "Nothing was queued."].join("\n"))
    expect(operations(sessionId)).toHaveLength(4)
  })

  it("passes on the note about tags listed twice", async () => {
    const { sessionId } = await prepared()
    expect(await call(sessionId, { drop: "§2§, 2, 3" })).toBe(
      [
        `Queued 2 drops (§2-3§, ~3,500 tokens); ${LAND_BELOW}`,
        "Note: listed more than once (counted once): §2§.",
      ].join("\n"),
    )
  })

  it("refuses a call that would free fewer than 500 tokens, queueing nothing", async () => {
    const { sessionId, state } = await prepared()
    expect(await call(sessionId, { drop: "4" })).toBe(
      "Refused: the named tags hold only 300 tokens, not worth rewriting the prompt for (minimum 500). Drop larger " +
        "finished outputs (file reads, long command output) instead.",
    )
    expect(operations(sessionId)).toEqual([])
    expect(state.queued.size).toBe(0)
    expect(reduceCalls(sessionId)).toEqual([
      {
        turn_message_id: "u1",
        drop_argument: "4",
        queued: 0,
        deferred: 0,
        rejected: 0,
        refused_reason: expect.stringContaining("only 300 tokens"),
      },
    ])
  })

  it("refuses the fourth call of a turn and allows calls again in the next turn", async () => {
    const { sessionId, last } = await prepared()
    await call(sessionId, { drop: "2" })
    await call(sessionId, { drop: "3" })
    await call(sessionId, { drop: "99" })
    const refusal =
      "ctx_reduce was already called 3 times this turn. Drops you queued land at the next execute pass; do not call " +
      "it again now, continue with the task."
    expect(await call(sessionId, { drop: "6" })).toBe(`Refused: ${refusal}`)
    expect(operations(sessionId).map((row) => row["tag"])).toEqual([2, 3])
    expect(reduceCalls(sessionId).at(-1)).toEqual({
      turn_message_id: "u1",
      drop_argument: "6",
      queued: 0,
      deferred: 0,
      rejected: 0,
      refused_reason: refusal,
    })

    runtime.lastPass.set(sessionId, { ...last, turnMessageId: "u2" })
    expect(await call(sessionId, { drop: "6" })).toMatch(/^Deferred 1 drop \(§6§, ~900 tokens\)/)
    expect(operations(sessionId).map((row) => row["tag"])).toEqual([2, 3, 6])
  })

  it.each<[string, Record<string, unknown>, string, string]>([
    ["a reversed range", { drop: "5-3" }, '"5-3" is a reversed range; write 3-5', "5-3"],
    ["no argument", {}, 'drop must be a string like "3-5,8", got nothing', ""],
    ["a number", { drop: 42 }, 'drop must be a string like "3-5,8", got a number', "42"],
    ["a list", { drop: [2, 3] }, 'drop must be a string like "3-5,8", got an object', "[2,3]"],
    ["an empty string", { drop: " " }, 'drop is empty: name the tags to drop, like "3-5,8,12-15"', " "],
  ])("answers malformed input (%s) without throwing and records it", async (_name, args, error, argument) => {
    const { sessionId } = await prepared()
    expect(await call(sessionId, args)).toBe(`Nothing was queued: ${error}.`)
    expect(operations(sessionId)).toEqual([])
    expect(reduceCalls(sessionId)).toEqual([
      { turn_message_id: "u1", drop_argument: argument, queued: 0, deferred: 0, rejected: 0, refused_reason: error },
    ])
  })

  it("answers a 10 MB argument in one short sentence and records only its head", async () => {
    const { sessionId } = await prepared()
    const drop = "2,".repeat(5 * 1024 * 1024)
    const error =
      "drop is 10,485,760 characters long; one call takes at most 10,000 characters (at most 500 tags, like " +
      '"3-5,8,12-15")'
    expect(await call(sessionId, { drop })).toBe(`Nothing was queued: ${error}.`)
    expect(reduceCalls(sessionId)).toEqual([
      {
        turn_message_id: "u1",
        drop_argument: clipText(drop, STORED_ARGUMENT_CHARS),
        queued: 0,
        deferred: 0,
        rejected: 0,
        refused_reason: error,
      },
    ])
    expect(String(reduceCalls(sessionId)[0]?.["drop_argument"]).length).toBeLessThan(STORED_ARGUMENT_CHARS + 30)
  })

  it("records only the head of a long argument it read", async () => {
    const { sessionId } = await prepared()
    const drop = `${"§2§ ".repeat(2_000)},x`
    const answer = await call(sessionId, { drop })
    expect(answer).toBe(`Nothing was queued: ${quoteArgument("x")} is not a tag number or a range like 3-5.`)
    expect(reduceCalls(sessionId)).toEqual([
      expect.objectContaining({ drop_argument: clipText(drop, STORED_ARGUMENT_CHARS) }),
    ])
  })

  it("answers 333 unknown tags in a bounded answer", async () => {
    const { sessionId } = await prepared()
    const drop = Array.from({ length: 333 }, (_, index) => 1_000 + 2 * index).join(",")
    const answer = await call(sessionId, { drop })
    expect(answer).toBe(
      "Rejected 333 tags (§1000§, §1002§, §1004§, §1006§, §1008§, §1010§ and 327 more tags): no such tag in this " +
        "session (tags in this session run from 1 to 6).\nNothing was queued.",
    )
    expect(answer.length).toBeLessThanOrEqual(MAX_TOOL_ANSWER_CHARS)
    expect(reduceCalls(sessionId)).toEqual([expect.objectContaining({ queued: 0, rejected: 333 })])
  })

  it.each<[string, unknown, string]>([
    ["an array nested 100,000 deep", nested(100_000), "[object that JSON cannot write]"],
    ["a list of a million numbers", Array.from({ length: 1_000_000 }, () => 7), "[7,7,7,7,7,7"],
  ])("answers %s as not a string and records a bounded description", async (_name, drop, head) => {
    const { sessionId } = await prepared()
    expect(await call(sessionId, { drop })).toBe('Nothing was queued: drop must be a string like "3-5,8", got an object.')
    const [row] = reduceCalls(sessionId)
    expect(String(row?.["drop_argument"]).startsWith(head)).toBe(true)
    expect(String(row?.["drop_argument"]).length).toBeLessThan(STORED_ARGUMENT_CHARS + 30)
  })

  it("says so when no pass has seen the session yet", async () => {
    expect(await call("ses_never_seen", { drop: "1" })).toBe(
      "Nothing was queued: magic-context has not seen this session's context yet. Try again after your next step.",
    )
    expect(reduceCalls("ses_never_seen")).toEqual([])
  })

  it("answers an internal error plainly, queues nothing and records the error", async () => {
    const { sessionId, last } = await prepared()
    const broken = new Proxy(last.view, {
      get(target, property, receiver) {
        if (property === "byTag") throw new Error("view exploded")
        return Reflect.get(target, property, receiver)
      },
    })
    runtime.lastPass.set(sessionId, { ...last, view: broken })
    expect(await call(sessionId, { drop: "2" })).toBe(
      "ctx_reduce could not run because of an internal error in magic-context (recorded); nothing was queued.",
    )
    expect(errors.recent()[0]).toMatchObject({ hook: "tool.ctx_reduce", sessionId, message: "view exploded" })
    expect(listErrors(db, { sessionId })).toEqual([
      expect.objectContaining({ hook: "tool.ctx_reduce", message: "view exploded" }),
    ])
    expect(operations(sessionId)).toEqual([])
    expect(reduceCalls(sessionId)).toEqual([])
  })
})

/** An array nested `depth` deep: [[[...]]]. */
function nested(depth: number): unknown {
  let value: unknown = []
  for (let level = 1; level < depth; level += 1) value = [value]
  return value
}
