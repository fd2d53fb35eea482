import { describe, expect, it } from "vitest"
import { applyPlanToState, planIngest } from "../../src/pass/plan-ingest.js"
import { emptySessionState, type SessionState } from "../../src/pass/session-state.js"
import { emptyComposition, measureComposition } from "../../src/render/composition.js"
import type { HostMessage } from "../../src/transcript/host-message.js"
import {
  assistantMessage,
  completed,
  failed,
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

const ingested = (messages: HostMessage[]): SessionState => {
  const state = emptySessionState(TEST_SESSION)
  applyPlanToState(state, planIngest({ state, messages, counter: wordCounter }))
  return state
}

const session = () => [
  userMessage({
    id: "msg_u1",
    parts: [text("u1", "one two three"), inlinedFile("f1", "a.txt", ["four five", "six"]), mediaFile("f2", "b.png")],
  }),
  assistantMessage({
    id: "msg_a1",
    parts: [
      reasoning("r1", "r r"),
      text("a1", "a a a a"),
      tool("t1", "read", completed({ path: "x" }, "o o o o o")),
      tool("t2", "bash", failed({ command: "false" }, "e")),
      (owner) => ({ id: "s1", ...owner, type: "step-start" }),
    ],
  }),
]

describe("emptyComposition", () => {
  it("is all zero", () => {
    expect(Object.values(emptyComposition()).every((value) => value === 0)).toBe(true)
    expect(Object.keys(emptyComposition()).sort()).toEqual(
      ["assistant", "files", "reasoning", "tags", "toolCalls", "toolOutputs", "total", "user"].sort(),
    )
  })
})

describe("measureComposition", () => {
  it("sums the stored counts by kind, plus one prefix per rendered tag", () => {
    const messages = session()
    const state = ingested(messages)
    // Tags: u1, f1, f2, a1, t1, t2: six prefixes of one word each.
    expect(state.tagsByPart.size).toBe(6)
    expect(measureComposition({ messages, state, tagsRendered: true })).toEqual({
      user: 3,
      files: 3,
      reasoning: 2,
      assistant: 4,
      toolCalls: 4,
      toolOutputs: 6,
      tags: 6,
      total: 28,
    })
  })

  it("counts no tags when they are not rendered", () => {
    const messages = session()
    const composition = measureComposition({ messages, state: ingested(messages), tagsRendered: false })
    expect(composition.tags).toBe(0)
    expect(composition.total).toBe(22)
  })

  it("counts only the parts in the given messages", () => {
    const messages = session()
    const state = ingested(messages)
    const composition = measureComposition({ messages: messages.slice(0, 1), state, tagsRendered: true })
    expect(composition).toMatchObject({ user: 3, files: 3, assistant: 0, toolOutputs: 0, tags: 3, total: 9 })
  })

  it("skips parts the state does not know", () => {
    const messages = session()
    const state = ingested(messages.slice(0, 1))
    const composition = measureComposition({ messages, state, tagsRendered: true })
    expect(composition).toMatchObject({ assistant: 0, reasoning: 0, toolCalls: 0, tags: 3, total: 9 })
  })

  it("does not count the prefix of a tool that has not finished, since none is written", () => {
    const messages = [assistantMessage({ id: "msg_a1", parts: [tool("t1", "bash", running({ command: "ls" }))] })]
    const state = ingested(messages)
    expect(state.tagsByPart.has("t1")).toBe(true)
    expect(measureComposition({ messages, state, tagsRendered: true }).tags).toBe(0)
  })

  it("reads only stored counts, never the text in the messages", () => {
    const messages = session()
    const state = ingested(messages)
    const edited = session()
    const part = edited[0]?.parts[0]
    if (part?.type !== "text") throw new Error("expected text")
    part.text = "many more words than were stored for this part"
    expect(measureComposition({ messages: edited, state, tagsRendered: true })).toEqual(
      measureComposition({ messages, state, tagsRendered: true }),
    )
  })
})
