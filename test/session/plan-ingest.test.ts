import { describe, expect, it } from "vitest"
import { applyPlanToState, isEmptyPlan, partKinds, planIngest } from "../../src/session/plan-ingest.js"
import { emptySessionState } from "../../src/session/session-state.js"
import { contentHash } from "../../src/transcript/content-hash.js"
import { INTERRUPTED_TOOL_TEXT } from "../../src/transcript/host-message.js"
import {
  assistantMessage,
  completed,
  failed,
  freshCopy,
  inlinedFile,
  mediaFile,
  reasoning,
  running,
  text,
  TEST_SESSION,
  tool,
  userMessage,
  wordCounter,
} from "../helpers/host-messages.js"

const conversation = () => [
  userMessage({
    id: "msg_u1",
    created: 5,
    parts: [text("u1", "please read the file"), inlinedFile("f1", "a.txt", ["x y"])],
  }),
  assistantMessage({
    id: "msg_a1",
    parts: [reasoning("r1", "I should read"), text("a1", "reading now"), tool("t1", "read", running({ path: "a" }))],
  }),
]

describe("planIngest", () => {
  it("plans every message, part and trackable of a new session in order", () => {
    const state = emptySessionState(TEST_SESSION)
    const messages = conversation()
    const plan = planIngest({ state, messages, counter: wordCounter })

    expect(plan.messages.map((message) => [message.id, message.seq, message.role, message.createdAt])).toEqual([
      ["msg_u1", 1, "user", 5],
      ["msg_a1", 2, "assistant", 2],
    ])
    expect(plan.messages[0]?.infoJson).toBe(JSON.stringify(messages[0]?.info))
    expect(plan.parts.map((part) => [part.id, part.position, part.kind, part.final, part.status])).toEqual([
      ["u1", 0, "user", true, null],
      ["f1-c0", 1, "file", true, null],
      ["f1", 2, "file", true, null],
      ["r1", 0, "reasoning", true, null],
      ["a1", 1, "assistant", true, null],
      ["t1", 2, "tool", false, "running"],
    ])
    expect(plan.tags.map((tag) => [tag.tag, tag.kind, tag.partId, tag.messageId, tag.tool])).toEqual([
      [1, "message", "u1", "msg_u1", null],
      [2, "file", "f1", "msg_u1", null],
      [3, "message", "a1", "msg_a1", null],
      [4, "tool", "t1", "msg_a1", "read"],
    ])
    expect(plan.nextTag).toBe(5)
    expect(plan.nextSeq).toBe(3)
  })

  it("stores each part as the exact JSON the host sent, hashed", () => {
    const messages = conversation()
    const plan = planIngest({ state: emptySessionState(TEST_SESSION), messages, counter: wordCounter })
    const parts = messages.flatMap((message) => message.parts)
    for (const [index, planned] of plan.parts.entries()) {
      expect(planned.content).toBe(parts[index])
      expect(planned.hash).toBe(contentHash(JSON.stringify(parts[index])))
    }
  })

  it("counts content and call tokens with the counter", () => {
    const messages = [
      assistantMessage({
        id: "msg_a1",
        parts: [tool("t1", "bash", completed({ command: "ls -la" }, "one two three"))],
      }),
      assistantMessage({ id: "msg_a2", parts: [tool("t2", "bash", running({ command: "ls" }))] }),
    ]
    const plan = planIngest({ state: emptySessionState(TEST_SESSION), messages, counter: wordCounter })
    // The call is `bash {"command":"ls -la"}`: three words.
    expect(plan.parts.map((part) => [part.id, part.tokens, part.callTokens])).toEqual([
      ["t1", 3, 3],
      ["t2", wordCounter.count(INTERRUPTED_TOOL_TEXT), 2],
    ])
    expect(plan.tags.map((tag) => tag.prefixTokens)).toEqual([1, 1])
  })

  it("plans nothing for messages it already knows", () => {
    const state = emptySessionState(TEST_SESSION)
    const first = planIngest({ state, messages: conversation(), counter: wordCounter })
    applyPlanToState(state, first)
    const second = planIngest({ state, messages: freshCopy(conversation()), counter: wordCounter })
    expect(isEmptyPlan(second)).toBe(true)
    expect(second.nextTag).toBe(first.nextTag)
    expect(second.nextSeq).toBe(first.nextSeq)
  })

  it("replans a running tool once it finishes, without a new tag", () => {
    const state = emptySessionState(TEST_SESSION)
    applyPlanToState(state, planIngest({ state, messages: conversation(), counter: wordCounter }))
    const later = conversation()
    const toolPart = later[1]?.parts[2]
    if (toolPart?.type !== "tool") throw new Error("expected the tool part")
    toolPart.state = completed({ path: "a" }, "file contents here")
    const plan = planIngest({ state, messages: later, counter: wordCounter })
    expect(plan.messages).toEqual([])
    expect(plan.tags).toEqual([])
    expect(plan.parts).toHaveLength(1)
    expect(plan.parts[0]).toMatchObject({
      id: "t1",
      final: true,
      status: "completed",
      tokens: 3,
      replacesNonFinal: true,
    })
  })

  it("ignores a running tool that is still running", () => {
    const state = emptySessionState(TEST_SESSION)
    applyPlanToState(state, planIngest({ state, messages: conversation(), counter: wordCounter }))
    const later = conversation()
    const toolPart = later[1]?.parts[2]
    if (toolPart?.type !== "tool") throw new Error("expected the tool part")
    toolPart.state = { status: "running", input: { path: "a" }, title: "still going", time: { start: 99 } }
    expect(isEmptyPlan(planIngest({ state, messages: later, counter: wordCounter }))).toBe(true)
  })

  it("never replans a final part, whatever the host sends under its id", () => {
    const state = emptySessionState(TEST_SESSION)
    const messages = [
      assistantMessage({ id: "msg_a1", parts: [text("a1", "done"), tool("t1", "bash", failed({}, "boom"))] }),
    ]
    applyPlanToState(state, planIngest({ state, messages, counter: wordCounter }))
    const changed = [
      assistantMessage({ id: "msg_a1", parts: [text("a1", "rewritten"), tool("t1", "bash", completed({}, "ok"))] }),
    ]
    expect(isEmptyPlan(planIngest({ state, messages: changed, counter: wordCounter }))).toBe(true)
  })

  it("plans a part id seen twice in one list once", () => {
    const messages = [
      userMessage({ id: "msg_u1", parts: [text("u1", "hello")] }),
      userMessage({ id: "msg_u1", parts: [text("u1", "hello")] }),
    ]
    const plan = planIngest({ state: emptySessionState(TEST_SESSION), messages, counter: wordCounter })
    expect(plan.messages).toHaveLength(1)
    expect(plan.parts).toHaveLength(1)
    expect(plan.tags.map((tag) => tag.tag)).toEqual([1])
  })

  it("continues numbering from the state's counters", () => {
    const state = emptySessionState(TEST_SESSION)
    state.nextTag = 41
    state.nextSeq = 7
    const plan = planIngest({ state, messages: conversation(), counter: wordCounter })
    expect(plan.tags.map((tag) => tag.tag)).toEqual([41, 42, 43, 44])
    expect(plan.messages.map((message) => message.seq)).toEqual([7, 8])
  })

  it("tags a tool output that looks tagged like any other, by id", () => {
    const messages = [
      assistantMessage({ id: "msg_a1", parts: [tool("t1", "bash", completed({}, "§1§ already §5§ tagged?"))] }),
    ]
    const plan = planIngest({ state: emptySessionState(TEST_SESSION), messages, counter: wordCounter })
    expect(plan.tags.map((tag) => [tag.tag, tag.partId])).toEqual([[1, "t1"]])
    expect(JSON.stringify(plan.parts[0]?.content)).toContain("§1§ already §5§ tagged?")
  })
})

describe("isEmptyPlan", () => {
  it("is true only when the plan adds nothing", () => {
    const state = emptySessionState(TEST_SESSION)
    expect(isEmptyPlan(planIngest({ state, messages: [], counter: wordCounter }))).toBe(true)
    expect(isEmptyPlan(planIngest({ state, messages: conversation(), counter: wordCounter }))).toBe(false)
    const emptyMessage = [userMessage({ id: "msg_empty" })]
    expect(isEmptyPlan(planIngest({ state, messages: emptyMessage, counter: wordCounter }))).toBe(false)
  })
})

describe("applyPlanToState", () => {
  it("folds messages, parts, tags and counters into the state", () => {
    const state = emptySessionState(TEST_SESSION)
    const plan = planIngest({ state, messages: conversation(), counter: wordCounter })
    applyPlanToState(state, plan)
    expect([...state.messageSeq]).toEqual([
      ["msg_u1", 1],
      ["msg_a1", 2],
    ])
    expect([...state.parts.keys()]).toEqual(["u1", "f1-c0", "f1", "r1", "a1", "t1"])
    expect(state.parts.get("t1")).toEqual({
      messageId: "msg_a1",
      kind: "tool",
      final: false,
      hash: plan.parts[5]?.hash,
      tokens: wordCounter.count(INTERRUPTED_TOOL_TEXT),
      callTokens: 2,
    })
    expect([...state.tagsByNumber.keys()]).toEqual([1, 2, 3, 4])
    expect(state.tagsByPart.get("f1")?.tag).toBe(2)
    expect(state.nextTag).toBe(5)
    expect(state.nextSeq).toBe(3)
  })
})

describe("partKinds", () => {
  it.each([
    ["user", "user"],
    ["assistant", "assistant"],
  ] as const)("reads text in a %s message as %s", (role, kind) => {
    const build = role === "user" ? userMessage : assistantMessage
    expect(partKinds(build({ id: "m", parts: [text("p", "hi")] }))).toEqual([kind])
  })

  it("marks a text file's content run as file and leaves other synthetic text alone", () => {
    const message = userMessage({
      id: "m",
      parts: [
        text("s0", "reminder", { synthetic: true }),
        text("u1", "hi"),
        inlinedFile("f1", "a.txt", ["a", "b"]),
        mediaFile("f2", "b.png"),
      ],
    })
    expect(partKinds(message)).toEqual(["user", "user", "file", "file", "file", "file"])
  })

  it("reads reasoning, tools and parts the model never sees", () => {
    const message = assistantMessage({
      id: "m",
      parts: [
        reasoning("r", "x"),
        tool("t", "bash", running()),
        (owner) => ({ id: "s", ...owner, type: "step-start" }),
      ],
    })
    expect(partKinds(message)).toEqual(["reasoning", "tool", "none"])
  })
})
