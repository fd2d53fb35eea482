import type { ToolContext, ToolDefinition } from "@opencode-ai/plugin"
import fc from "fast-check"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { defaultConfig, type Config } from "../../src/config/schema.js"
import { createHistoryPlanner } from "../../src/pass/history-planner.js"
import { runPass } from "../../src/pass/run-pass.js"
import type { SessionState } from "../../src/session/session-state.js"
import { MAX_EXPAND_CHARS } from "../../src/host/expand-call.js"
import { MAX_PINS_PER_CALL } from "../../src/host/pin-call.js"
import { createErrorLog } from "../../src/host/error-log.js"
import { createHostRuntime, type LastPass, type HostRuntime } from "../../src/host/host-runtime.js"
import { usagePercent } from "../../src/pressure/bands.js"
import { fixedWindow } from "../../src/pressure/model-window.js"
import { MAX_TOOL_ANSWER_CHARS, STORED_ARGUMENT_CHARS } from "../../src/reduce/answer-bounds.js"
import { markTagsDropped } from "../../src/store/applied-state-repository.js"
import { listCompartments } from "../../src/store/compartment-repository.js"
import type { Database } from "../../src/store/driver.js"
import { statement } from "../../src/store/statements.js"
import type { HostMessage } from "../../src/transcript/host-message.js"
import { assistantMessage, completed, fixedClock, running, text, tool, userMessage, wordCounter } from "../helpers/host-messages.js"
import { createTempDirs } from "../helpers/temp-dirs.js"
import { recordFaultTally } from "./fault-table.js"
import { readTagList, readTarget, type TagListProblem, type TargetReading } from "./tag-grammar-reference.js"
import { createExpandTool, createPinTool, createReduceTool } from "../../src/plugin/context-tools.js"
import { passCachesOf } from "../helpers/pass-caches-of.js"

/**
 * Fuzzed ctx_reduce / ctx_pin / ctx_expand arguments against an independent reading of the documented grammar
 * (`tag-grammar-reference.ts`), through the real tools on a file store: every accepted argument acts on exactly the
 * tags the reference reads, every refused one gets an answer naming one of the problems the reference sees, no call
 * throws, and every answer and call record stays under its bound.
 */

const SESSION = "ses_fault_tool_arguments"
const TURNS = 12
/** Tags: 2k-1 the user's message of turn k, 2k its read (600 words); 25 a bash call still running. */
const HIGHEST_TAG = 2 * TURNS + 1
/** Read 3 (tag 6) was dropped before the fuzzing starts. */
const DROPPED = 6
/** What a ctx_reduce call can queue or defer: every read but the dropped one (tag 24, the newest, is deferred). */
const DROPPABLE = new Set(Array.from({ length: TURNS }, (_, index) => 2 * (index + 1)).filter((tag) => tag !== DROPPED))
const WINDOW = fixedWindow({ usableTokens: 1_000_000, config: { ...defaultConfig(), protected_tokens: 300 } })
const MB = 1024 * 1024
/** An expand answer with stored text: MAX_EXPAND_CHARS and the note on what is not shown. */
const MAX_EXPAND_ANSWER_CHARS = MAX_EXPAND_CHARS + 50

const PROBLEM_TEXT: Record<TagListProblem, RegExp> = {
  "not-a-string": /must be a string like "3-5,8", got /,
  "too-long": /is [\d,]+ characters long; one call takes at most 10,000 characters/,
  empty: /is empty: name the tags to /,
  "empty-item": /has an empty item between commas/,
  malformed: /is not a tag number or a range like 3-5/,
  "too-large": /is too large to be a tag/,
  zero: /: tags start at 1/,
  reversed: /is a reversed range; write \d+-\d+/,
  span: /names [\d,]+ tags; one call may name at most 500/,
  total: /names more than 500 tags in total/,
}

const dirs = createTempDirs()
let runtime: HostRuntime
let db: Database
let state: SessionState
let last: LastPass
let episodes = 0
let turn = 0
const tallies = new Map<string, { tried: number; survived: number }>()

beforeAll(async () => {
  const errors = createErrorLog({ now: () => 5_000, hostLog: () => undefined })
  const config: Config = { ...defaultConfig(), database: { ...defaultConfig().database, path: join(dirs.make("tool-arguments"), "store.db") } }
  runtime = createHostRuntime({ config, configDiagnostics: [], errors, faults: new Set(), env: {}, now: () => 1_000 })
  db = await runtime.database()
  const registry = await runtime.sessions()
  state = registry.stateFor({ id: SESSION, source: "opencode", projectId: null, directory: null, title: null }, wordCounter)
  const history = createHistoryPlanner({ db, sessionId: SESSION, counter: wordCounter, policy: "default", expanded: runtime.expanded })
  registry.held(SESSION)?.usePlanner(history)
  const result = runPass({
    db,
    state,
    caches: passCachesOf(state),
    messages: session(),
    counter: wordCounter,
    clock: fixedClock,
    trigger: "transform",
    tagsVisible: true,
    window: WINDOW,
    fixedTokens: 0,
    now: 10_000,
    smartDrops: false,
    history,
  })
  markTagsDropped(db, SESSION, [{ tag: DROPPED, reason: "reclaim", supersededBy: null }], result.seq)
  const dropped = state.tagsByNumber.get(DROPPED)
  if (dropped) dropped.status = "dropped"
  last = {
    view: result.view,
    window: WINDOW,
    usagePercent: usagePercent(result.usageAfter, WINDOW.usableTokens),
    tagsVisible: true,
    turnMessageId: "u12",
    passSeq: result.seq,
  }
  runtime.lastPass.set(SESSION, last)
  episodes = listCompartments(db, SESSION).length
})

afterAll(() => {
  for (const [probe, { tried, survived }] of tallies) recordFaultTally({ probe, tried, survived, lost: tried - survived })
  runtime.dispose()
  dirs.cleanup()
})

describe("the fixture", () => {
  it("has the tags, drops and episodes the properties assume", async () => {
    expect(state.nextTag - 1).toBe(HIGHEST_TAG)
    expect(episodes).toBeGreaterThanOrEqual(3)
    await reduce(`1-${HIGHEST_TAG}`)
    expect(queuedTags()).toEqual([...DROPPABLE].sort((a, b) => a - b))
    forgetReduceCalls()
  })
})

describe("ctx_reduce drop", () => {
  it("acts on exactly the tags the reference reads, and refuses what it refuses", async () => {
    await fc.assert(fc.asyncProperty(argument, (input) => tally("ctx_reduce arguments", () => checkReduce(input))), { numRuns: 400 })
  })

  it.each(extremes())("survives %s", async (_name, input) => {
    await tally("ctx_reduce arguments", () => checkReduce(input))
  })
})

describe("ctx_pin tags", () => {
  it("pins exactly the tags the reference reads, and refuses what it refuses", async () => {
    await fc.assert(fc.asyncProperty(argument, (input) => tally("ctx_pin arguments", () => checkPin(input))), { numRuns: 300 })
  })

  it.each(extremes())("survives %s", async (_name, input) => {
    await tally("ctx_pin arguments", () => checkPin(input))
  })
})

describe("ctx_expand target", () => {
  it("returns what the reference reads the target as", async () => {
    await fc.assert(fc.asyncProperty(target, (input) => tally("ctx_expand arguments", () => checkExpand(input))), { numRuns: 400 })
  })

  it.each(extremes())("survives %s", async (_name, input) => {
    await tally("ctx_expand arguments", () => checkExpand(input))
  })
})

async function checkReduce(input: unknown): Promise<void> {
  const reading = readTagList(input)
  const answer = await reduce(input)
  const rows = reduceCalls()
  try {
    expect(answer.length, answer).toBeLessThanOrEqual(MAX_TOOL_ANSWER_CHARS)
    expect(rows).toHaveLength(1)
    const row = rows[0] as Record<string, unknown>
    expect(String(row["drop_argument"]).length).toBeLessThanOrEqual(STORED_ARGUMENT_CHARS + 30)
    if (!reading.ok) {
      expect(answer).toMatch(/^Nothing was queued: /)
      expect(namesOneOf(answer, reading.problems), `${answer} for ${[...reading.problems].join(", ")}`).toBe(true)
      expect(queuedTags()).toEqual([])
      return
    }
    const acted = reading.tags.filter((tag) => DROPPABLE.has(tag))
    expect(queuedTags()).toEqual(acted)
    expect(Number(row["queued"]) + Number(row["deferred"])).toBe(acted.length)
    expect(row["rejected"]).toBe(reading.tags.length - acted.length)
    expect(row["refused_reason"]).toBeNull()
  } finally {
    forgetReduceCalls()
  }
}

/** Every call starts from the same store: nothing queued, no earlier call recorded. */
function forgetReduceCalls(): void {
  statement(db, "DELETE FROM operations WHERE session_id = ?").run([SESSION])
  statement(db, "DELETE FROM reduce_calls WHERE session_id = ?").run([SESSION])
  state.queued.clear()
}

async function checkPin(input: unknown): Promise<void> {
  const reading = readTagList(input)
  const answer = await call(createPinTool(runtime), { tags: input })
  try {
    expect(answer.length, answer).toBeLessThanOrEqual(MAX_TOOL_ANSWER_CHARS)
    if (!reading.ok) {
      expect(answer).toMatch(/^Nothing was pinned: /)
      expect(namesOneOf(answer, reading.problems), `${answer} for ${[...reading.problems].join(", ")}`).toBe(true)
      expect(pinnedTags()).toEqual([])
      return
    }
    if (reading.tags.length > MAX_PINS_PER_CALL) {
      expect(answer).toBe(`Nothing was pinned: one call pins at most ${MAX_PINS_PER_CALL} tags.`)
      expect(pinnedTags()).toEqual([])
      return
    }
    expect(pinnedTags()).toEqual(reading.tags.filter((tag) => tag <= HIGHEST_TAG))
    expect(answer.split("\n").map((line) => /^§(\d+)§/.exec(line)?.[1])).toEqual(reading.tags.map(String))
  } finally {
    statement(db, "DELETE FROM pins WHERE session_id = ?").run([SESSION])
  }
}

async function checkExpand(input: unknown): Promise<void> {
  const readings = readTarget(input)
  const answer = await call(createExpandTool(runtime), { target: input })
  expect(answer.length).toBeLessThanOrEqual(MAX_EXPAND_ANSWER_CHARS)
  const returnsStoredText = readings.some((reading) => reading.kind === "episode" || reading.kind === "tag")
  if (!returnsStoredText || /^No (tag|episode) /.test(answer)) expect(answer.length).toBeLessThanOrEqual(MAX_TOOL_ANSWER_CHARS)
  expect(
    readings.some((reading) => agrees(reading, answer)),
    `${answer.slice(0, 200)} for ${JSON.stringify(readings, (_key, value: unknown) => (typeof value === "bigint" ? String(value) : value))}`,
  ).toBe(true)
}

function agrees(reading: TargetReading, answer: string): boolean {
  switch (reading.kind) {
    case "missing":
      return answer.startsWith("target must be an episode id")
    case "too-long":
      return /^target is [\d,]+ characters long: give one episode id/.test(answer)
    case "several":
      return / names several tags; ctx_expand takes one target at a time\.$/.test(answer)
    case "neither":
      return / is neither an episode id like "c12" nor a tag like "§42§"\.$/.test(answer)
    case "tag":
      return reading.number >= 1n && reading.number <= BigInt(HIGHEST_TAG)
        ? answer.startsWith(`§${reading.number}§`)
        : answer.startsWith("No tag ")
    case "episode":
      return reading.number >= 1n && reading.number <= BigInt(episodes)
        ? answer.startsWith(`[c${reading.number} `)
        : answer.startsWith("No episode ")
  }
}

function namesOneOf(answer: string, problems: ReadonlySet<TagListProblem>): boolean {
  return [...problems].some((problem) => PROBLEM_TEXT[problem].test(answer))
}

/** Runs one check and counts it: tried always, survived when every assertion held. */
async function tally(probe: string, check: () => Promise<void>): Promise<void> {
  const counts = tallies.get(probe) ?? { tried: 0, survived: 0 }
  tallies.set(probe, counts)
  counts.tried += 1
  await check()
  counts.survived += 1
}

// ---- the arguments ----

const SPACES = ["", " ", "  ", "\t", "\n", "\u00a0", "\u2003", "\u3000", "\ufeff"]
/** Characters an agent (or a tokenizer) might put where a digit, sign, comma or hyphen belongs. */
const LOOKALIKES = ["٣", "３", "𝟑", "–", "—", "−", "‐", "﹣", "\u00ad", "，", "、", "﹐", "\u200b", "\u0085", "\u180e", "S", "$", "¶", "+", ".", "e", "x", "😀"]

const numberText = fc.oneof(
  { weight: 6, arbitrary: fc.integer({ min: 1, max: HIGHEST_TAG + 3 }).map(String) },
  { weight: 2, arbitrary: fc.integer({ min: 0, max: 5_000 }).map(String) },
  { weight: 1, arbitrary: fc.tuple(fc.integer({ min: 1, max: 3 }), fc.integer({ min: 1, max: HIGHEST_TAG })).map(([zeros, tag]) => `${"0".repeat(zeros)}${tag}`) },
  {
    weight: 1,
    arbitrary: fc.constantFrom("0", "9007199254740991", "9007199254740992", "99999999999999999999", "1".repeat(400)),
  },
)
const spelled = fc
  .tuple(numberText, fc.constantFrom("", "§"), fc.constantFrom("", "§"))
  .map(([number, before, after]) => `${before}${number}${after}`)
const space = fc.constantFrom(...SPACES)
const piece = fc.oneof(
  spelled,
  fc.tuple(spelled, space, space, spelled).map(([first, left, right, lastTag]) => `${first}${left}-${right}${lastTag}`),
)
const joiner = fc.constantFrom(",", ", ", " , ", "", " ", "§", "§§", " § ", ",,", "-")
/** Lists of tags and ranges, spelled the ways an agent writes them, joined well or badly. */
const tagList = fc
  .tuple(fc.array(piece, { maxLength: 8 }), fc.infiniteStream(joiner), space, space)
  .map(([pieces, joiners, lead, trail]) => `${lead}${pieces.map((item, index) => (index === 0 ? item : `${joiners.next().value}${item}`)).join("")}${trail}`)
/** Character soup from the grammar's alphabet and its lookalikes. */
const soup = fc
  .array(fc.constantFrom(..."0123456789", "§", ",", "-", "c", "C", ...SPACES.filter(Boolean), ...LOOKALIKES), { maxLength: 40 })
  .map((characters) => characters.join(""))
/** Around the length bound: a list repeated to 9,990..10,010 characters. */
const nearTheBound = fc
  .tuple(fc.constantFrom("1,", "§2§", "3-4,", " ", "x"), fc.integer({ min: 9_990, max: 10_010 }))
  .map(([unit, length]) => unit.repeat(Math.ceil(length / unit.length)).slice(0, length))
const argument: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 8, arbitrary: tagList },
  { weight: 4, arbitrary: soup },
  { weight: 2, arbitrary: fc.string({ unit: "grapheme", maxLength: 30 }) },
  { weight: 1, arbitrary: fc.string({ unit: "binary", maxLength: 30 }) },
  { weight: 1, arbitrary: nearTheBound },
  { weight: 1, arbitrary: fc.anything().filter((value) => typeof value !== "string") },
)
/** ctx_expand targets: episode ids and tags spelled every way, plus everything `argument` tries. */
const target: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 4, arbitrary: fc.tuple(space, fc.constantFrom("c", "C", "§c", "c§", "cc", "c "), numberText, fc.constantFrom("", "§"), space).map((parts) => parts.join("")) },
  { weight: 4, arbitrary: fc.tuple(space, spelled, space).map((parts) => parts.join("")) },
  { weight: 6, arbitrary: argument },
)

/** Arguments no fuzzer reaches by chance: sizes and shapes that once made answers or parsing blow up. */
function extremes(): [string, unknown][] {
  return [
    ["10 MB of '1,'", "1,".repeat(5 * MB)],
    ["10 MB of '§1§'", "§1§".repeat(Math.floor((10 * MB) / 3))],
    ["10 MB of one letter", "c".repeat(10 * MB)],
    ["10 MB of spaces", " ".repeat(10 * MB)],
    ["a digit and 9,000 signs", `1${"§".repeat(9_000)}`],
    ["333 unknown tags", Array.from({ length: 333 }, (_, index) => 1_000 + 2 * index).join(",")],
    ["500 tags, every one named twice", [...Array.from({ length: 500 }, (_, index) => 2 * index + 1), ...Array.from({ length: 500 }, (_, index) => 2 * index + 1)].join(",")],
    ["an array nested 100,000 deep", nested(100_000)],
    ["a million numbers", Array.from({ length: 1_000_000 }, () => 7)],
  ]
}

// ---- the session and the calls ----

function session(): HostMessage[] {
  const messages: HostMessage[] = []
  for (let index = 1; index <= TURNS; index += 1) {
    messages.push(
      userMessage({ id: `u${index}`, sessionID: SESSION, created: index * 100, parts: [text(`tu${index}`, `Update src/mod${index}.ts next.`)] }),
      assistantMessage({
        id: `a${index}`,
        sessionID: SESSION,
        created: index * 100 + 1,
        parts: [tool(`tr${index}`, "read", completed({ filePath: `src/mod${index}.ts` }, "word ".repeat(600).trimEnd()))],
      }),
    )
  }
  messages.push(assistantMessage({ id: "a-running", sessionID: SESSION, created: 5_000, parts: [tool("tb", "bash", running({ command: "make" }))] }))
  return messages
}

/** A ctx_reduce call in a turn of its own, so the per-turn cap never hides what an argument does. */
function reduce(drop: unknown): Promise<string> {
  turn += 1
  runtime.lastPass.set(SESSION, { ...last, turnMessageId: `turn-${turn}` })
  return call(createReduceTool(runtime), { drop })
}

async function call(definition: ToolDefinition, args: Record<string, unknown>): Promise<string> {
  const context = { sessionID: SESSION, messageID: "m", agent: "build", directory: "/", worktree: "/" } as ToolContext
  const answer = await definition.execute(args as never, context)
  if (typeof answer !== "string") throw new Error("the ctx_* tools answer in plain text")
  return answer
}

function queuedTags(): number[] {
  return statement(db, "SELECT tag FROM operations WHERE session_id = ? ORDER BY tag")
    .all([SESSION])
    .map((row) => Number(row["tag"]))
}

function pinnedTags(): number[] {
  return statement(db, "SELECT tag FROM pins WHERE session_id = ? ORDER BY tag")
    .all([SESSION])
    .map((row) => Number(row["tag"]))
}

function reduceCalls(): Record<string, unknown>[] {
  return statement(db, "SELECT drop_argument, queued, deferred, rejected, refused_reason FROM reduce_calls WHERE session_id = ?").all([SESSION])
}

function nested(depth: number): unknown {
  let value: unknown = []
  for (let level = 1; level < depth; level += 1) value = [value]
  return value
}
