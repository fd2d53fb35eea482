import { describe, expect, it } from "vitest"
import { COMPACTION_PROMPT_TEXT, INTERRUPTED_TOOL_TEXT, PRUNED_TOOL_TEXT } from "../../src/transcript/host-message.js"
import { isPrunedTool, partText, stableJson, toolResultText } from "../../src/transcript/part-content.js"
import {
  assistantMessage,
  completed,
  failed,
  mediaFile,
  pending,
  reasoning,
  running,
  text,
  tool,
  type PartSpec,
} from "../helpers/host-messages.js"

const single = (spec: PartSpec) => {
  const [part] = assistantMessage({ id: "msg_1", parts: [spec] }).parts
  if (!part) throw new Error("no part")
  return part
}

describe("stableJson", () => {
  it("serializes equal objects with different key order to the same bytes", () => {
    expect(stableJson({ b: 1, a: { d: [1, { z: 1, y: 2 }], c: null } })).toBe(
      stableJson({ a: { c: null, d: [1, { y: 2, z: 1 }] }, b: 1 }),
    )
    expect(stableJson({ b: 1, a: 2 })).toBe('{"a":2,"b":1}')
  })

  it("keeps array order", () => {
    expect(stableJson([3, 1, 2])).toBe("[3,1,2]")
  })

  it("sorts by code unit, not by locale", () => {
    expect(stableJson({ b: 1, B: 2, a: 3, _: 4 })).toBe('{"B":2,"_":4,"a":3,"b":1}')
  })

  it.each([
    [undefined, "null"],
    [null, "null"],
    ["x", '"x"'],
    [1.5, "1.5"],
    [{ a: undefined, b: 1 }, '{"b":1}'],
  ])("serializes %j as %s", (value, expected) => {
    expect(stableJson(value)).toBe(expected)
  })
})

describe("partText", () => {
  it("reads text and reasoning as written", () => {
    expect(partText(single(text("p1", "hello")))).toEqual({ content: "hello", call: "" })
    expect(partText(single(reasoning("r1", "thinking")))).toEqual({ content: "thinking", call: "" })
  })

  it("reads an ignored text part as empty", () => {
    expect(partText(single(text("p1", "hidden", { ignored: true })))).toEqual({ content: "", call: "" })
  })

  it.each([
    ["completed", completed({ b: 2, a: 1 }, "the output"), "the output"],
    ["error", failed({ b: 2, a: 1 }, "the error"), "the error"],
    ["running", running({ b: 2, a: 1 }), INTERRUPTED_TOOL_TEXT],
    ["pending", pending({ b: 2, a: 1 }), INTERRUPTED_TOOL_TEXT],
  ])("reads a %s tool as its call with sorted input and its result", (_status, state, content) => {
    expect(partText(single(tool("t1", "read", state)))).toEqual({ content, call: 'read {"a":1,"b":2}' })
  })

  it("reads a tool output the host pruned as the marker OpenCode sends instead", () => {
    const state = completed({ a: 1 }, "the full output")
    if (state.status !== "completed") throw new Error("expected a completed state")
    const pruned = { ...state, time: { ...state.time, compacted: 5 } }
    expect(partText(single(tool("t1", "read", pruned)))).toEqual({ content: PRUNED_TOOL_TEXT, call: 'read {"a":1}' })
  })

  it("reads a pruned output's marker through toolResultText and isPrunedTool, and an unpruned one as it is", () => {
    const state = completed({ a: 1 }, "the full output")
    if (state.status !== "completed") throw new Error("expected a completed state")
    const pruned = single(tool("t1", "read", { ...state, time: { ...state.time, compacted: 5 } }))
    const kept = single(tool("t2", "read", state))
    const errored = single(tool("t3", "read", failed({}, "boom")))
    if (pruned.type !== "tool" || kept.type !== "tool" || errored.type !== "tool") throw new Error("expected tools")
    expect([isPrunedTool(pruned), isPrunedTool(kept), isPrunedTool(errored)]).toEqual([true, false, false])
    expect([toolResultText(pruned), toolResultText(kept), toolResultText(errored)]).toEqual([
      PRUNED_TOOL_TEXT,
      "the full output",
      "boom",
    ])
  })

  it("reads a compaction part as the question OpenCode substitutes", () => {
    const part = single((owner) => ({ id: "c1", ...owner, type: "compaction", auto: false }))
    expect(partText(part)).toEqual({ content: COMPACTION_PROMPT_TEXT, call: "" })
  })

  it("reads parts the model never sees as empty", () => {
    expect(partText(single(mediaFile("f1", "a.png")))).toEqual({ content: "", call: "" })
  })
})
