import { describe, expect, it } from "vitest"
import type { TagRecord } from "../../src/pass/session-state.js"
import { planTagEdits } from "../../src/render/plan-tag-edits.js"
import {
  assistantMessage,
  completed,
  freshCopy,
  inlinedFile,
  mediaFile,
  running,
  text,
  tool,
  userMessage,
} from "../helpers/host-messages.js"

const tagRecord = (tag: number, partId: string, kind: TagRecord["kind"] = "message"): TagRecord => ({
  tag,
  kind,
  messageId: "m",
  partId,
  tool: null,
  status: "live",
  prefixTokens: 1,
})

const tagsFor = (entries: [string, number, TagRecord["kind"]][]): Map<string, TagRecord> =>
  new Map(entries.map(([partId, tag, kind]) => [partId, tagRecord(tag, partId, kind)]))

const session = () => [
  userMessage({
    id: "msg_u1",
    parts: [text("u1", "look"), inlinedFile("f1", "a.txt", ["content"]), mediaFile("f2", "b.png")],
  }),
  assistantMessage({ id: "msg_a1", parts: [text("a1", "ok"), tool("t1", "read", completed({}, "out"))] }),
]

describe("planTagEdits", () => {
  it("writes each tag where its trackable says", () => {
    const tagsByPart = tagsFor([
      ["u1", 1, "message"],
      ["f1", 2, "file"],
      ["f2", 3, "file"],
      ["a1", 4, "message"],
      ["t1", 5, "tool"],
    ])
    expect(planTagEdits({ messages: session(), tagsByPart })).toEqual([
      { type: "prefix-text", messageIndex: 0, partIndex: 0, partId: "u1", prefix: "§1§ " },
      { type: "prefix-text", messageIndex: 0, partIndex: 1, partId: "f1-c0", prefix: "§2§ " },
      { type: "insert-text", messageIndex: 0, partIndex: 3, beforePartId: "f2", newPartId: "f2-tag", text: "§3§ " },
      { type: "prefix-text", messageIndex: 1, partIndex: 0, partId: "a1", prefix: "§4§ " },
      { type: "prefix-tool-output", messageIndex: 1, partIndex: 1, partId: "t1", prefix: "§5§ " },
    ])
  })

  it("leaves items without a stored tag untouched", () => {
    const tagsByPart = tagsFor([["t1", 9, "tool"]])
    expect(planTagEdits({ messages: session(), tagsByPart })).toEqual([
      { type: "prefix-tool-output", messageIndex: 1, partIndex: 1, partId: "t1", prefix: "§9§ " },
    ])
  })

  it("ignores tags of parts that are not trackable in these messages", () => {
    const tagsByPart = tagsFor([["f1-c0", 1, "file"], ["gone", 2, "tool"]])
    expect(planTagEdits({ messages: session(), tagsByPart })).toEqual([])
  })

  it("plans a prefix for a running tool too (the shell writes nothing for it)", () => {
    const messages = [assistantMessage({ id: "msg_a1", parts: [tool("t1", "bash", running())] })]
    expect(planTagEdits({ messages, tagsByPart: tagsFor([["t1", 1, "tool"]]) })).toEqual([
      { type: "prefix-tool-output", messageIndex: 0, partIndex: 0, partId: "t1", prefix: "§1§ " },
    ])
  })

  it("gives the same edits for the same inputs and does not touch the messages", () => {
    const messages = session()
    const before = JSON.stringify(messages)
    const tagsByPart = tagsFor([["u1", 1, "message"], ["f2", 3, "file"]])
    const first = planTagEdits({ messages, tagsByPart })
    const second = planTagEdits({ messages: freshCopy(messages), tagsByPart })
    expect(JSON.stringify(first)).toBe(JSON.stringify(second))
    expect(JSON.stringify(messages)).toBe(before)
  })
})
