import type { HostPart as Part } from "../../src/transcript/host-message.js"
import fc from "fast-check"
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest"
import { defaultConfig } from "../../src/config/schema.js"
import { runPass } from "../../src/pass/run-pass.js"
import type { SessionState } from "../../src/session/session-state.js"
import { applyEdits } from "../../src/session/apply-edits.js"
import { fixedWindow } from "../../src/pressure/model-window.js"
import type { Database } from "../../src/store/driver.js"
import { listPasses } from "../../src/store/pass-repository.js"
import { countSessionRows, readRawParts } from "../../src/store/raw-repository.js"
import { createTokenCounterPool, type TokenCounterPool } from "../../src/tokens/tiktoken-counter.js"
import type { TokenCounter } from "../../src/tokens/token-counter.js"
import { INTERRUPTED_TOOL_TEXT, type HostMessage } from "../../src/transcript/host-message.js"
import { tagPrefix } from "../../src/transcript/tag-format.js"
import { listTrackables } from "../../src/transcript/trackables.js"
import {
  allParts,
  assistantMessage,
  completed,
  failed,
  fixedClock,
  freshCopy,
  inlinedFile,
  mediaFile,
  memoryStore,
  partById,
  passAndRender,
  pending,
  reasoning,
  ROOMY_WINDOW,
  running,
  sessionState,
  storedContentJson,
  storedTags,
  TEST_SESSION,
  text,
  tool,
  userMessage,
  visibleText,
  type PartSpec,
} from "../helpers/host-messages.js"
import { passCachesOf } from "../helpers/pass-caches-of.js"

let pool: TokenCounterPool
let counter: TokenCounter

beforeAll(() => {
  pool = createTokenCounterPool()
  counter = pool.counterFor("o200k_base")
})

afterAll(() => {
  pool.dispose()
})

/** A small session: a user turn with a text file and an image, an assistant turn with two tools. */
const firstExchange = (): HostMessage[] => [
  userMessage({
    id: "msg_001",
    parts: [
      text("prt_u1", "Please fix the bug in a.txt"),
      inlinedFile("prt_f1", "a.txt", ["Called read", "line 1\n"]),
      mediaFile("prt_f2", "shot.png"),
    ],
  }),
  assistantMessage({
    id: "msg_002",
    parts: [
      reasoning("prt_r1", "Let me look."),
      text("prt_a1", "Reading the file."),
      tool("prt_t1", "read", completed({ path: "a.txt" }, "line 1\n")),
      tool("prt_t2", "bash", failed({ command: "make" }, "make: *** no rule")),
    ],
  }),
]

const tagOf = (state: SessionState, partId: string): number => {
  const tag = state.tagsByPart.get(partId)?.tag
  if (tag === undefined) throw new Error(`no tag for ${partId}`)
  return tag
}

const toolState = (messages: HostMessage[], id: string) => {
  const part = partById(messages, id)
  if (part.type !== "tool") throw new Error(`${id} is not a tool`)
  return part
}

describe("runPass", () => {
  let db: Database
  let state: SessionState

  beforeEach(async () => {
    db = await memoryStore()
    state = sessionState({ db, counter })
  })

  it("stores the session, tags every trackable in order and renders the prefixes", () => {
    const messages = firstExchange()
    const { result, rendered } = passAndRender({ db, state, messages, counter })

    expect(result.seq).toBe(1)
    expect(result.newTags).toEqual([1, 2, 3, 4, 5, 6])
    expect(result.newParts).toBe(9)
    expect([...storedTags(db)]).toEqual([
      ["prt_u1", 1],
      ["prt_f1", 2],
      ["prt_f2", 3],
      ["prt_a1", 4],
      ["prt_t1", 5],
      ["prt_t2", 6],
    ])
    expect(countSessionRows(db, TEST_SESSION)).toEqual({ messages: 2, parts: 9, tags: 6, passes: 1 })
    expect(rendered[0]?.parts.map((part) => [part.id, part.type === "text" ? part.text : part.type])).toEqual([
      ["prt_u1", "§1§ Please fix the bug in a.txt"],
      ["prt_f1-c0", "§2§ Called read"],
      ["prt_f1-c1", "line 1\n"],
      ["prt_f1", "file"],
      ["prt_f2-tag", "§3§ "],
      ["prt_f2", "file"],
    ])
    expect(visibleText(partById(rendered, "prt_r1"))).toBe("Let me look.")
    expect(visibleText(partById(rendered, "prt_a1"))).toBe("§4§ Reading the file.")
    expect(visibleText(partById(rendered, "prt_t1"))).toBe("§5§ line 1\n")
    expect(visibleText(partById(rendered, "prt_t2"))).toBe("§6§ make: *** no rule")
  })

  it("counts tokens with the real tokenizer once, at ingest", () => {
    const messages = firstExchange()
    passAndRender({ db, state, messages, counter })
    const raw = new Map(readRawParts(db, TEST_SESSION).map((part) => [part.id, part]))
    expect(raw.get("prt_u1")?.tokens).toBe(counter.count("Please fix the bug in a.txt"))
    expect(raw.get("prt_t1")?.callTokens).toBe(counter.count('read {"path":"a.txt"}'))
    expect(raw.get("prt_t2")?.tokens).toBe(counter.count("make: *** no rule"))
  })

  it.each([
    ["inside the protected window", 50_000],
    ["outside the protected window", 0],
  ])("measures where the tokens go with everything %s", (where, protectedTokens) => {
    const window = fixedWindow({
      usableTokens: 1_000_000,
      config: { ...defaultConfig(), protected_tokens: protectedTokens },
    })
    const { result } = passAndRender({ db, state, messages: firstExchange(), counter, window, fixedTokens: 77 })
    const prefix = (tag: number): number => counter.count(tagPrefix(tag))
    // Conversation: the user's and the assistant's text and the reasoning, with the two message tags.
    const conversation =
      counter.count("Please fix the bug in a.txt") +
      counter.count("Reading the file.") +
      counter.count("Let me look.") +
      prefix(1) +
      prefix(4)
    // Tool output: the inlined file and the image (tags 2 and 3), two tool arcs (call and result, tags 5 and 6).
    const tool =
      counter.count("Called read") +
      counter.count("line 1\n") +
      counter.count('read {"path":"a.txt"}') +
      counter.count("line 1\n") +
      counter.count('bash {"command":"make"}') +
      counter.count("make: *** no rule") +
      [2, 3, 5, 6].reduce((sum, tag) => sum + prefix(tag), 0)
    const inside = where === "inside the protected window"
    expect(result.breakdown).toEqual({
      total: 77 + conversation + tool,
      fixed: 77,
      history: 0,
      conversation: inside ? 0 : conversation,
      protected: inside ? conversation + tool : 0,
      tool: inside ? 0 : tool,
      reclaimable: 0,
      tags: [1, 2, 3, 4, 5, 6].reduce((sum, tag) => sum + prefix(tag), 0),
    })
    expect(result.breakdownBefore).toEqual(result.breakdown)
    expect(result.usageBefore).toBe(result.breakdown.total)
    expect(result.usageAfter).toBe(result.breakdown.total)
  })

  it("counts no prefix for a tool that has not finished and no output but its call", () => {
    const messages = [
      userMessage({ id: "msg_001", parts: [text("u1", "run it")] }),
      assistantMessage({ id: "msg_002", parts: [tool("t1", "bash", running({ command: "make" }))] }),
    ]
    const { result } = passAndRender({ db, state, messages, counter })
    expect(result.breakdown.tags).toBe(counter.count(tagPrefix(1)))
    expect(result.breakdown.protected).toBe(
      counter.count("run it") +
        counter.count(tagPrefix(1)) +
        counter.count('bash {"command":"make"}') +
        counter.count(INTERRUPTED_TOOL_TEXT),
    )
  })

  it("records the pass", () => {
    passAndRender({ db, state, messages: firstExchange(), counter, trigger: "compaction" })
    passAndRender({ db, state, messages: firstExchange(), counter })
    const [second, first] = listPasses(db, TEST_SESSION)
    expect(first).toMatchObject({ seq: 1, trigger: "compaction", messageCount: 2, newParts: 9, newTags: 6 })
    expect(second).toMatchObject({ seq: 2, trigger: "transform", messageCount: 2, newParts: 0, newTags: 0 })
    expect(first?.detail).toMatchObject({ newTags: [1, 2, 3, 4, 5, 6] })
    expect(first?.renderedTokens).toBe(second?.renderedTokens)
  })

  it("stores tags but plans no edits when tags are not visible", () => {
    const { result, rendered } = passAndRender({ db, state, messages: firstExchange(), counter, tagsVisible: false })
    expect(result.edits).toEqual([])
    expect(result.breakdown.tags).toBe(0)
    expect(JSON.stringify(rendered)).toBe(JSON.stringify(firstExchange()))
    expect(storedTags(db).size).toBe(6)
  })

  it("leaves the messages it is given untouched", () => {
    const messages = firstExchange()
    const before = JSON.stringify(messages)
    runPass({
      db,
      state,
      caches: passCachesOf(state),
      messages,
      counter,
      clock: fixedClock,
      trigger: "transform",
      tagsVisible: true,
      window: ROOMY_WINDOW,
      fixedTokens: 0,
      now: fixedClock.now(),
      smartDrops: false,
    })
    expect(JSON.stringify(messages)).toBe(before)
  })

  describe("idempotent ingest", () => {
    it("stores nothing new when the same messages come again", () => {
      const first = passAndRender({ db, state, messages: firstExchange(), counter })
      const rowsAfterFirst = countSessionRows(db, TEST_SESSION)
      const tagsAfterFirst = storedTags(db)
      const contentAfterFirst = storedContentJson(db)

      const second = passAndRender({ db, state, messages: firstExchange(), counter })
      expect(second.result.newTags).toEqual([])
      expect(second.result.newParts).toBe(0)
      expect(countSessionRows(db, TEST_SESSION)).toEqual({ ...rowsAfterFirst, passes: rowsAfterFirst.passes + 1 })
      expect(storedTags(db)).toEqual(tagsAfterFirst)
      expect(storedContentJson(db)).toEqual(contentAfterFirst)
      expect(JSON.stringify(second.rendered)).toBe(JSON.stringify(first.rendered))
      expect(second.result.breakdown).toEqual(first.result.breakdown)
    })

    it("stores nothing new after the state is reloaded from the store", () => {
      const first = passAndRender({ db, state, messages: firstExchange(), counter })
      const reloaded = sessionState({ db, counter })
      expect(reloaded).not.toBe(state)
      const second = passAndRender({ db, state: reloaded, messages: firstExchange(), counter })
      expect(second.result.newTags).toEqual([])
      expect(second.result.newParts).toBe(0)
      expect(second.result.seq).toBe(2)
      expect(JSON.stringify(second.rendered)).toBe(JSON.stringify(first.rendered))
      expect(second.result.breakdown).toEqual(first.result.breakdown)
    })
  })

  describe("tag numbering", () => {
    it("keeps every tag forever and gives new items strictly larger numbers, without gaps", () => {
      const growth: HostMessage[] = [
        userMessage({ id: "msg_001", parts: [text("u1", "start")] }),
        assistantMessage({ id: "msg_002", parts: [text("a1", "ok"), tool("t1", "bash", completed({}, "x"))] }),
        userMessage({ id: "msg_003", parts: [inlinedFile("f1", "b.txt", ["content"]), text("u2", "and this")] }),
        assistantMessage({ id: "msg_004", parts: [reasoning("r1", "hm"), tool("t2", "read", completed({}, "y"))] }),
        userMessage({ id: "msg_005", parts: [mediaFile("f2", "c.png")] }),
        assistantMessage({ id: "msg_006", parts: [tool("t3", "glob", completed({}, "z")), text("a2", "done")] }),
      ]
      const session: HostMessage[] = []
      const seen = new Map<string, number>()
      for (const message of growth) {
        session.push(message)
        const { result } = passAndRender({ db, state, messages: session, counter })
        const previousMax = Math.max(0, ...seen.values())
        expect(result.newTags.every((tag) => tag > previousMax)).toBe(true)
        const tags = storedTags(db)
        for (const [partId, tag] of seen) expect(tags.get(partId)).toBe(tag)
        for (const [partId, tag] of tags) seen.set(partId, tag)
        expect([...tags.values()].sort((a, b) => a - b)).toEqual(range(tags.size))
      }
      expect([...seen]).toEqual([
        ["u1", 1],
        ["a1", 2],
        ["t1", 3],
        ["f1", 4],
        ["u2", 5],
        ["t2", 6],
        ["f2", 7],
        ["t3", 8],
        ["a2", 9],
      ])
    })
  })

  describe("tool outputs that look tagged", () => {
    it.each([
      ["contains §5§", "see §5§ in the log"],
      ["starts like a prefix", "§1§ looks tagged"],
      ["is only a prefix", "§2§ "],
      ["uses the entity spelling", "&sect;3&sect; html"],
    ])("stores an output that %s pristine and gives it its own tag once", (_name, output) => {
      const messages = [
        userMessage({ id: "msg_001", parts: [text("u1", "go")] }),
        assistantMessage({ id: "msg_002", parts: [tool("t1", "bash", completed({ command: "cat log" }, output))] }),
      ]
      const first = passAndRender({ db, state, messages, counter })
      expect(first.result.newTags).toEqual([1, 2])
      expect(tagOf(state, "t1")).toBe(2)
      expect(storedContentJson(db).get("t1")).toBe(JSON.stringify(partById(messages, "t1")))
      expect(visibleText(partById(first.rendered, "t1"))).toBe(`${tagPrefix(2)}${output}`)

      const second = passAndRender({ db, state, messages, counter })
      expect(second.result.newTags).toEqual([])
      expect(visibleText(partById(second.rendered, "t1"))).toBe(`${tagPrefix(2)}${output}`)
      expect(storedTags(db).size).toBe(2)
    })
  })

  describe("a tool that finishes between passes", () => {
    const session = (state: Parameters<typeof tool>[2]): HostMessage[] => [
      userMessage({ id: "msg_001", parts: [text("u1", "run it")] }),
      assistantMessage({ id: "msg_002", parts: [text("a1", "running"), tool("t1", "bash", state)] }),
    ]
    const finalOutput = "BUILD OK\n" + "compiled 17 files ".repeat(5)

    it.each([
      ["running", running({ command: "make" })],
      ["pending", pending({ command: "make" })],
    ])("keeps the tag first given to a %s tool and replaces its content once", (_status, first) => {
      const early = session(first)
      const seen = passAndRender({ db, state, messages: early, counter })
      expect(seen.result.newTags).toEqual([1, 2, 3])
      expect(tagOf(state, "t1")).toBe(3)
      expect(JSON.stringify(toolState(seen.rendered, "t1"))).toBe(JSON.stringify(toolState(early, "t1")))
      expect(storedContentJson(db).get("t1")).toBe(JSON.stringify(partById(early, "t1")))
      const rawEarly = readRawParts(db, TEST_SESSION).find((part) => part.id === "t1")
      expect(rawEarly).toMatchObject({ final: false, tokens: counter.count(INTERRUPTED_TOOL_TEXT) })

      const done = session(completed({ command: "make" }, finalOutput))
      const finished = passAndRender({ db, state, messages: done, counter })
      expect(finished.result.newTags).toEqual([])
      expect(finished.result.newParts).toBe(1)
      expect(tagOf(state, "t1")).toBe(3)
      expect(storedContentJson(db).get("t1")).toBe(JSON.stringify(partById(done, "t1")))
      const rawDone = readRawParts(db, TEST_SESSION).find((part) => part.id === "t1")
      expect(rawDone).toMatchObject({ final: true, tokens: counter.count(finalOutput) })
      expect(state.parts.get("t1")?.tokens).toBe(counter.count(finalOutput))
      expect(visibleText(partById(finished.rendered, "t1"))).toBe(`${tagPrefix(3)}${finalOutput}`)

      const again = passAndRender({ db, state, messages: done, counter })
      expect(again.result.newParts).toBe(0)
      expect(countSessionRows(db, TEST_SESSION)).toMatchObject({ parts: 3, tags: 3 })
    })

    it("never changes a finished tool's stored content, whatever the host sends later", () => {
      const done = session(completed({ command: "make" }, finalOutput))
      passAndRender({ db, state, messages: done, counter })
      const storedBefore = storedContentJson(db).get("t1")
      const tokensBefore = state.parts.get("t1")?.tokens

      const rewritten = session(completed({ command: "make" }, "something else entirely"))
      const later = passAndRender({ db, state, messages: rewritten, counter })
      expect(later.result.newParts).toBe(0)
      expect(storedContentJson(db).get("t1")).toBe(storedBefore)
      expect(state.parts.get("t1")?.tokens).toBe(tokensBefore)
      const reloaded = sessionState({ db, counter })
      expect(reloaded.parts.get("t1")?.tokens).toBe(tokensBefore)
      expect(storedContentJson(db).get("t1")).toBe(JSON.stringify(partById(done, "t1")))
    })
  })

  describe("determinism", () => {
    it("renders byte-identical prompts from two fresh stores and across passes", async () => {
      const messages = firstExchange()
      const one = passAndRender({ db, state, messages, counter })
      const otherDb = await memoryStore()
      const otherState = sessionState({ db: otherDb, counter })
      const two = passAndRender({ db: otherDb, state: otherState, messages, counter })
      const three = passAndRender({ db, state, messages, counter })
      expect(JSON.stringify(two.rendered)).toBe(JSON.stringify(one.rendered))
      expect(JSON.stringify(three.rendered)).toBe(JSON.stringify(one.rendered))
      expect(two.result.edits).toEqual(one.result.edits)
      expect(two.result.breakdown).toEqual(one.result.breakdown)
      otherDb.close()
    })
  })

  describe("raw before reduce", () => {
    it("stores every part exactly as the host sent it, before any edit", () => {
      const messages = firstExchange()
      const { rendered } = passAndRender({ db, state, messages, counter })
      const stored = storedContentJson(db)
      const hostParts = allParts(messages)
      expect(stored.size).toBe(hostParts.length)
      for (const part of hostParts) expect(stored.get(part.id)).toBe(JSON.stringify(part))
      expect(JSON.stringify(rendered)).not.toBe(JSON.stringify(messages))
    })
  })
})

function range(count: number): number[] {
  return Array.from({ length: count }, (_, index) => index + 1)
}

type GrowStep =
  | { type: "user"; parts: PartGen[] }
  | { type: "assistant"; parts: PartGen[] }
  | { type: "finish"; which: number; output: string; error: boolean }
  | { type: "restart" }

type PartGen =
  | { type: "text"; body: string; ignored: boolean }
  | { type: "synthetic"; body: string }
  | { type: "reasoning"; body: string }
  | { type: "tool"; status: "pending" | "running" | "completed" | "error"; output: string }
  | { type: "file"; contents: string[] }
  | { type: "media" }

const bodyArbitrary: fc.Arbitrary<string> = fc
  .array(
    fc.oneof(
      fc.constantFrom("alpha", "beta ", " ", "\n", "§", "see § 4.2"),
      fc.nat({ max: 40 }).map((tag) => `§${tag}§`),
      fc.nat({ max: 40 }).map((tag) => `§${tag}§ `),
      fc.string({ maxLength: 4 }),
    ),
    { maxLength: 5 },
  )
  .map((pieces) => pieces.join(""))

const partArbitrary: fc.Arbitrary<PartGen> = fc.oneof(
  fc.record({ type: fc.constant("text" as const), body: bodyArbitrary, ignored: fc.boolean() }),
  fc.record({ type: fc.constant("synthetic" as const), body: bodyArbitrary }),
  fc.record({ type: fc.constant("reasoning" as const), body: bodyArbitrary }),
  fc.record({
    type: fc.constant("tool" as const),
    status: fc.constantFrom("pending" as const, "running" as const, "completed" as const, "error" as const),
    output: bodyArbitrary,
  }),
  fc.record({ type: fc.constant("file" as const), contents: fc.array(bodyArbitrary, { maxLength: 3 }) }),
  fc.record({ type: fc.constant("media" as const) }),
)

const stepArbitrary: fc.Arbitrary<GrowStep> = fc.oneof(
  {
    weight: 3,
    arbitrary: fc.record({ type: fc.constant("user" as const), parts: fc.array(partArbitrary, { maxLength: 4 }) }),
  },
  {
    weight: 4,
    arbitrary: fc.record({ type: fc.constant("assistant" as const), parts: fc.array(partArbitrary, { maxLength: 5 }) }),
  },
  {
    weight: 3,
    arbitrary: fc.record({
      type: fc.constant("finish" as const),
      which: fc.nat(),
      output: bodyArbitrary,
      error: fc.boolean(),
    }),
  },
  { weight: 1, arbitrary: fc.record({ type: fc.constant("restart" as const) }) },
)

/** Turns generated parts into part specs with ids unique in the session. */
function specsFor(parts: PartGen[], prefix: string): PartSpec[] {
  return parts.map((part, index): PartSpec => {
    const id = `${prefix}_${index}`
    const input = { n: index }
    switch (part.type) {
      case "text":
        return text(id, part.body, part.ignored ? { ignored: true } : {})
      case "synthetic":
        return text(id, part.body, { synthetic: true })
      case "reasoning":
        return reasoning(id, part.body)
      case "tool": {
        const state =
          part.status === "pending"
            ? pending(input)
            : part.status === "running"
              ? running(input)
              : part.status === "completed"
                ? completed(input, part.output)
                : failed(input, part.output)
        return tool(id, "bash", state)
      }
      case "file":
        return inlinedFile(id, `${id}.txt`, part.contents)
      case "media":
        return mediaFile(id, `${id}.png`)
    }
  })
}

describe("runPass (property)", () => {
  it("keeps tags complete, gap-free and stable, renders deterministically and stores raw content", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(stepArbitrary, { minLength: 1, maxLength: 10 }), async (steps) => {
        const db = await memoryStore()
        try {
          let state = sessionState({ db, counter })
          const session: HostMessage[] = []
          const everSeen = new Map<string, number>()
          for (const [stepIndex, step] of steps.entries()) {
            applyStep(session, step, stepIndex)
            if (step.type === "restart") state = sessionState({ db, counter })
            const { result, rendered } = passAndRender({ db, state, messages: session, counter })
            checkSession({ db, state, session, rendered, everSeen, newTags: result.newTags })

            const twice = [freshCopy(session), freshCopy(session)]
            for (const copy of twice) applyEdits(copy, result.edits)
            expect(JSON.stringify(twice[0])).toBe(JSON.stringify(twice[1]))
            expect(JSON.stringify(twice[0])).toBe(JSON.stringify(rendered))

            const repeat = passAndRender({ db, state, messages: session, counter })
            expect(repeat.result.newTags).toEqual([])
            expect(repeat.result.newParts).toBe(0)
            expect(JSON.stringify(repeat.rendered)).toBe(JSON.stringify(rendered))
          }
        } finally {
          db.close()
        }
      }),
      { numRuns: 50 },
    )
  })
})

function applyStep(session: HostMessage[], step: GrowStep, stepIndex: number): void {
  const messageId = `msg_${String(stepIndex).padStart(3, "0")}`
  if (step.type === "user" || step.type === "assistant") {
    const build = step.type === "user" ? userMessage : assistantMessage
    session.push(build({ id: messageId, parts: specsFor(step.parts, `prt_${stepIndex}`) }))
    return
  }
  if (step.type !== "finish") return
  const open = allParts(session).filter(
    (part): part is Extract<Part, { type: "tool" }> =>
      part.type === "tool" && (part.state.status === "running" || part.state.status === "pending"),
  )
  const target = open[step.which % Math.max(open.length, 1)]
  if (!target) return
  target.state = step.error ? failed(target.state.input, step.output) : completed(target.state.input, step.output)
}

function checkSession(options: {
  db: Database
  state: SessionState
  session: HostMessage[]
  rendered: HostMessage[]
  everSeen: Map<string, number>
  newTags: number[]
}): void {
  const { db, state, session, rendered, everSeen, newTags } = options
  const trackables = session.flatMap((message) => listTrackables(message))
  const tags = storedTags(db)

  // Every trackable has exactly one tag, and nothing else has one.
  expect(tags.size).toBe(trackables.length)
  for (const trackable of trackables) expect(tags.has(trackable.partId)).toBe(true)
  expect(new Set(tags.values()).size).toBe(tags.size)

  // Tag numbers are 1..N without gaps, matching the in-memory state.
  expect([...tags.values()].sort((a, b) => a - b)).toEqual(range(tags.size))
  expect(state.nextTag).toBe(tags.size + 1)
  expect(new Map([...state.tagsByPart].map(([partId, record]) => [partId, record.tag]))).toEqual(tags)

  // Tags are stable, and new ones are larger than every earlier one.
  const previousMax = Math.max(0, ...everSeen.values())
  for (const [partId, tag] of everSeen) expect(tags.get(partId)).toBe(tag)
  for (const tag of newTags) expect(tag).toBeGreaterThan(previousMax)
  for (const [partId, tag] of tags) everSeen.set(partId, tag)

  // The store holds every part exactly as the host sent it.
  const stored = storedContentJson(db)
  const hostParts = allParts(session)
  expect(stored.size).toBe(hostParts.length)
  for (const part of hostParts) expect(stored.get(part.id)).toBe(JSON.stringify(part))

  // Each tagged item is rendered as its prefix plus the original bytes (a running tool gets no prefix).
  const renderedParts = new Map(allParts(rendered).map((part) => [part.id, part]))
  for (const trackable of trackables) {
    const tag = tags.get(trackable.partId) ?? 0
    const target = partById(session, trackable.render.partId)
    const out = renderedParts.get(trackable.render.partId)
    if (!out) throw new Error(`rendered prompt lost ${trackable.render.partId}`)
    if (trackable.render.type === "before-file") {
      expect(renderedParts.get(`${trackable.partId}-tag`)).toMatchObject({ type: "text", text: `§${tag}§ ` })
      continue
    }
    if (target.type === "tool" && (target.state.status === "running" || target.state.status === "pending")) {
      expect(JSON.stringify(out)).toBe(JSON.stringify(target))
      continue
    }
    expect(visibleText(out)).toBe(`${tagPrefix(tag)}${visibleText(target)}`)
  }
}
