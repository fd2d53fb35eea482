import { describe, expect, it } from "vitest"
import { applyEdits } from "../../src/plugin/apply-edits.js"
import type { Edit } from "../../src/render/edit.js"
import {
  assistantMessage,
  completed,
  failed,
  freshCopy,
  mediaFile,
  partById,
  running,
  text,
  tool,
  userMessage,
  visibleText,
} from "../helpers/host-messages.js"

const session = () => [
  userMessage({ id: "msg_u1", parts: [text("u1", "hello"), mediaFile("f1", "a.png"), mediaFile("f2", "b.png")] }),
  assistantMessage({
    id: "msg_a1",
    parts: [
      text("a1", "answer"),
      tool("t1", "read", completed({}, "output")),
      tool("t2", "bash", failed({}, "error text")),
      tool("t3", "bash", running()),
    ],
  }),
]

describe("applyEdits", () => {
  it("prefixes text, tool outputs and tool errors in place", () => {
    const messages = session()
    applyEdits(messages, [
      { type: "prefix-text", messageIndex: 0, partIndex: 0, partId: "u1", prefix: "§1§ " },
      { type: "prefix-tool-output", messageIndex: 1, partIndex: 1, partId: "t1", prefix: "§2§ " },
      { type: "prefix-tool-output", messageIndex: 1, partIndex: 2, partId: "t2", prefix: "§3§ " },
    ])
    expect(visibleText(partById(messages, "u1"))).toBe("§1§ hello")
    expect(visibleText(partById(messages, "t1"))).toBe("§2§ output")
    expect(visibleText(partById(messages, "t2"))).toBe("§3§ error text")
  })

  it("writes nothing into a tool that has not finished", () => {
    const messages = session()
    const before = JSON.stringify(messages)
    applyEdits(messages, [
      { type: "prefix-tool-output", messageIndex: 1, partIndex: 3, partId: "t3", prefix: "§4§ " },
    ])
    expect(JSON.stringify(messages)).toBe(before)
  })

  it("inserts a synthetic text part right before the file part", () => {
    const messages = session()
    applyEdits(messages, [{ type: "insert-text", messageIndex: 0, partIndex: 1, beforePartId: "f1", newPartId: "f1-tag", text: "§2§" }])
    expect(messages[0]?.parts.map((part) => part.id)).toEqual(["u1", "f1-tag", "f1", "f2"])
    expect(messages[0]?.parts[1]).toEqual({
      id: "f1-tag",
      sessionID: "ses_test",
      messageID: "msg_u1",
      type: "text",
      text: "§2§",
      synthetic: true,
    })
  })

  it.each([
    ["in edit order", [0, 1, 2]],
    ["in reverse order", [2, 1, 0]],
    ["shuffled", [1, 2, 0]],
  ])("keeps every target right with several inserts and a prefix in one message (%s)", (_name, order) => {
    const edits: Edit[] = [
      { type: "insert-text", messageIndex: 0, partIndex: 1, beforePartId: "f1", newPartId: "f1-tag", text: "§2§" },
      { type: "prefix-text", messageIndex: 0, partIndex: 0, partId: "u1", prefix: "§1§ " },
      { type: "insert-text", messageIndex: 0, partIndex: 2, beforePartId: "f2", newPartId: "f2-tag", text: "§3§" },
    ]
    const messages = session()
    applyEdits(messages, order.map((index) => edits[index] as Edit))
    expect(messages[0]?.parts.map((part) => [part.id, part.type === "text" ? part.text : null])).toEqual([
      ["u1", "§1§ hello"],
      ["f1-tag", "§2§"],
      ["f1", null],
      ["f2-tag", "§3§"],
      ["f2", null],
    ])
  })

  it("keeps the order of two inserts before the same part", () => {
    const messages = session()
    applyEdits(messages, [
      { type: "insert-text", messageIndex: 0, partIndex: 1, beforePartId: "f1", newPartId: "first", text: "1" },
      { type: "insert-text", messageIndex: 0, partIndex: 1, beforePartId: "f1", newPartId: "second", text: "2" },
    ])
    expect(messages[0]?.parts.map((part) => part.id)).toEqual(["u1", "first", "second", "f1", "f2"])
  })

  it("inserts before the right part in every message", () => {
    const messages = [
      userMessage({ id: "m0", parts: [mediaFile("x0", "a.png")] }),
      userMessage({ id: "m1", parts: [text("y", "t"), mediaFile("x1", "b.png")] }),
    ]
    applyEdits(messages, [
      { type: "insert-text", messageIndex: 1, partIndex: 1, beforePartId: "x1", newPartId: "x1-tag", text: "§2§" },
      { type: "insert-text", messageIndex: 0, partIndex: 0, beforePartId: "x0", newPartId: "x0-tag", text: "§1§" },
    ])
    expect(messages.map((message) => message.parts.map((part) => part.id))).toEqual([
      ["x0-tag", "x0"],
      ["y", "x1-tag", "x1"],
    ])
  })

  it.each<[string, Edit, string]>([
    [
      "a prefix-text on the wrong part id",
      { type: "prefix-text", messageIndex: 1, partIndex: 0, partId: "u1", prefix: "§9§ " },
      "edit expected text part u1, found text part a1",
    ],
    [
      "a prefix-text on a tool part",
      { type: "prefix-text", messageIndex: 1, partIndex: 1, partId: "t1", prefix: "§9§ " },
      "edit expected text part t1, found tool part t1",
    ],
    [
      "a prefix-tool-output on a text part",
      { type: "prefix-tool-output", messageIndex: 0, partIndex: 0, partId: "u1", prefix: "§9§ " },
      "edit expected tool part u1, found text part u1",
    ],
    [
      "a part index past the end",
      { type: "prefix-text", messageIndex: 0, partIndex: 7, partId: "u1", prefix: "§9§ " },
      "found nothing",
    ],
    [
      "a message index past the end",
      { type: "prefix-text", messageIndex: 5, partIndex: 0, partId: "u1", prefix: "§9§ " },
      "edit refers to message 5, but there are 2",
    ],
    [
      "an insert past the end",
      { type: "insert-text", messageIndex: 0, partIndex: 3, beforePartId: "f1", newPartId: "x", text: "§9§" },
      "edit expected to insert before part f1, found nothing",
    ],
    [
      "an insert whose target part moved",
      { type: "insert-text", messageIndex: 0, partIndex: 2, beforePartId: "f1", newPartId: "x", text: "§9§" },
      "edit expected to insert before part f1, found part f2",
    ],
  ])("throws on %s and changes nothing", (_name, bad, message) => {
    const messages = session()
    const before = structuredClone(messages)
    const good: Edit[] = [
      { type: "prefix-text", messageIndex: 0, partIndex: 0, partId: "u1", prefix: "§1§ " },
      { type: "insert-text", messageIndex: 0, partIndex: 1, beforePartId: "f1", newPartId: "f1-tag", text: "§2§" },
      { type: "prefix-tool-output", messageIndex: 1, partIndex: 1, partId: "t1", prefix: "§3§ " },
    ]
    expect(() => applyEdits(messages, [...good, bad])).toThrow(message)
    expect(messages).toEqual(before)
    expect(JSON.stringify(messages)).toBe(JSON.stringify(before))
  })

  it("gives identical results on two fresh copies", () => {
    const edits: Edit[] = [
      { type: "prefix-text", messageIndex: 0, partIndex: 0, partId: "u1", prefix: "§1§ " },
      { type: "insert-text", messageIndex: 0, partIndex: 2, beforePartId: "f2", newPartId: "f2-tag", text: "§2§" },
    ]
    const first = freshCopy(session())
    const second = freshCopy(session())
    applyEdits(first, edits)
    applyEdits(second, edits)
    expect(JSON.stringify(first)).toBe(JSON.stringify(second))
  })

  it("does nothing with no edits", () => {
    const messages = session()
    const before = JSON.stringify(messages)
    applyEdits(messages, [])
    expect(JSON.stringify(messages)).toBe(before)
  })
})
