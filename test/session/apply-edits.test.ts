import { describe, expect, it } from "vitest"
import { applyEdits, applyRenderedEdits, type RenderedList } from "../../src/session/apply-edits.js"
import { buildLiveView } from "../../src/session/live-view.js"
import { beginPass, createMessageMemo } from "../../src/session/message-memo.js"
import { renderPromptPlaced } from "../../src/render/render-prompt.js"
import { ingestedState, markDropped } from "../helpers/pure-session.js"
import type { Edit } from "../../src/session/edit.js"
import type { HostMessage } from "../../src/transcript/host-message.js"
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

const session = (): HostMessage[] => [
  userMessage({ id: "msg_u1", parts: [text("u1", "hello"), mediaFile("f1", "a.png"), mediaFile("f2", "b.png")] }),
  assistantMessage({
    id: "msg_a1",
    parts: [
      text("a1", "answer"),
      tool("t1", "read", completed({ path: "a.txt" }, "output")),
      tool("t2", "bash", failed({ command: "make" }, "error text")),
      tool("t3", "bash", running()),
    ],
  }),
  userMessage({ id: "msg_u2", parts: [text("u2", "thanks")] }),
]

/** A synthetic user message, as the renderer inserts for history or a steer message. */
const inserted = (id: string, body: string): HostMessage => userMessage({
  id,
  parts: [text(`${id}-text`, body, { synthetic: true })],
})

const ids = (messages: readonly HostMessage[]): string[] => messages.map((message) => message.info.id)

const toolPart = (messages: readonly HostMessage[], id: string) => {
  const part = partById(messages, id)
  if (part.type !== "tool") throw new Error(`${id} is not a tool`)
  return part
}

describe("applyEdits", () => {
  it("sets text, tool outputs and tool errors in place", () => {
    const messages = session()
    applyEdits(messages, [
      { type: "set-text", messageId: "msg_u1", partId: "u1", text: "§1§ hello" },
      { type: "set-tool-result", messageId: "msg_a1", partId: "t1", text: "§5§ output" },
      { type: "set-tool-result", messageId: "msg_a1", partId: "t2", text: "[dropped §6§ bash output]" },
    ])
    expect(visibleText(partById(messages, "u1"))).toBe("§1§ hello")
    expect(visibleText(partById(messages, "t1"))).toBe("§5§ output")
    expect(toolPart(messages, "t2").state).toMatchObject({ status: "error", error: "[dropped §6§ bash output]" })
  })

  it("replaces a tool's input with a new state object and keeps the rest of the state", () => {
    const messages = session()
    const original = toolPart(messages, "t1").state
    applyEdits(
      messages,
      [{ type: "set-tool-input", messageId: "msg_a1", partId: "t1", input: { path: "[9 chars dropped]" } }],
    )
    const state = toolPart(messages, "t1").state
    expect(state).not.toBe(original)
    expect(original.input).toEqual({ path: "a.txt" })
    expect(state).toEqual({ ...original, input: { path: "[9 chars dropped]" } })
  })

  it.each<[string, Edit[]]>([
    [
      "result first",
      [
        { type: "set-tool-result", messageId: "msg_a1", partId: "t1", text: "[dropped]" },
        { type: "set-tool-input", messageId: "msg_a1", partId: "t1", input: { path: "x" } },
      ],
    ],
    [
      "input first",
      [
        { type: "set-tool-input", messageId: "msg_a1", partId: "t1", input: { path: "x" } },
        { type: "set-tool-result", messageId: "msg_a1", partId: "t1", text: "[dropped]" },
      ],
    ],
  ])("applies both the result and the input of one tool whatever their order (%s)", (_order, edits) => {
    const messages = session()
    applyEdits(messages, edits)
    expect(toolPart(messages, "t1").state).toMatchObject({
      status: "completed",
      output: "[dropped]",
      input: { path: "x" },
    })
  })

  it("inserts a synthetic text part right before its part", () => {
    const messages = session()
    applyEdits(
      messages,
      [{ type: "insert-part", messageId: "msg_u1", beforePartId: "f1", partId: "f1-tag", text: "§2§ " }],
    )
    expect(messages[0]?.parts.map((part) => part.id)).toEqual(["u1", "f1-tag", "f1", "f2"])
    expect(messages[0]?.parts[1]).toEqual({
      id: "f1-tag",
      sessionID: "ses_test",
      messageID: "msg_u1",
      type: "text",
      text: "§2§ ",
      synthetic: true,
    })
  })

  it("keeps the order of two inserts before the same part", () => {
    const messages = session()
    applyEdits(messages, [
      { type: "insert-part", messageId: "msg_u1", beforePartId: "f1", partId: "first", text: "1" },
      { type: "insert-part", messageId: "msg_u1", beforePartId: "f1", partId: "second", text: "2" },
    ])
    expect(messages[0]?.parts.map((part) => part.id)).toEqual(["u1", "first", "second", "f1", "f2"])
  })

  it("replaces a dropped media file by its marker: insert before it, then remove it", () => {
    const messages = session()
    applyEdits(messages, [
      { type: "remove-part", messageId: "msg_u1", partId: "f1" },
      {
        type: "insert-part",
        messageId: "msg_u1",
        beforePartId: "f1",
        partId: "f1-tag",
        text: "[dropped §2§ file a.png]",
      },
    ])
    expect(messages[0]?.parts.map((part) => [part.id, part.type === "text" ? part.text : part.type])).toEqual([
      ["u1", "hello"],
      ["f1-tag", "[dropped §2§ file a.png]"],
      ["f2", "file"],
    ])
  })

  it.each([
    ["in edit order", [0, 1, 2, 3]],
    ["in reverse order", [3, 2, 1, 0]],
    ["shuffled", [2, 0, 3, 1]],
  ])("keeps every target right with inserts, a removal and a text edit in one message (%s)", (_name, order) => {
    const edits: Edit[] = [
      { type: "insert-part", messageId: "msg_u1", beforePartId: "f1", partId: "f1-tag", text: "§2§ " },
      { type: "set-text", messageId: "msg_u1", partId: "u1", text: "§1§ hello" },
      {
        type: "insert-part",
        messageId: "msg_u1",
        beforePartId: "f2",
        partId: "f2-tag",
        text: "[dropped §3§ file b.png]",
      },
      { type: "remove-part", messageId: "msg_u1", partId: "f2" },
    ]
    const messages = session()
    applyEdits(messages, order.map((index) => edits[index] as Edit))
    expect(messages[0]?.parts.map((part) => [part.id, part.type === "text" ? part.text : null])).toEqual([
      ["u1", "§1§ hello"],
      ["f1-tag", "§2§ "],
      ["f1", null],
      ["f2-tag", "[dropped §3§ file b.png]"],
    ])
  })

  it("removes whole messages", () => {
    const messages = session()
    applyEdits(messages, [
      { type: "remove-message", messageId: "msg_u1" },
      { type: "remove-message", messageId: "msg_a1" },
    ])
    expect(ids(messages)).toEqual(["msg_u2"])
  })

  it("inserts messages at the start in edit order, after the removed ones are gone", () => {
    const messages = session()
    applyEdits(messages, [
      { type: "insert-message", afterMessageId: null, message: inserted("history", "so far") },
      { type: "remove-message", messageId: "msg_u1" },
      { type: "insert-message", afterMessageId: null, message: inserted("second", "then") },
    ])
    expect(ids(messages)).toEqual(["history", "second", "msg_a1", "msg_u2"])
    expect(visibleText(partById(messages, "history-text"))).toBe("so far")
  })

  it("inserts messages after their anchor, several after one anchor in edit order", () => {
    const messages = session()
    applyEdits(messages, [
      { type: "insert-message", afterMessageId: "msg_a1", message: inserted("steer-1", "one") },
      { type: "insert-message", afterMessageId: "msg_u2", message: inserted("steer-end", "end") },
      { type: "insert-message", afterMessageId: "msg_a1", message: inserted("steer-2", "two") },
    ])
    expect(ids(messages)).toEqual(["msg_u1", "msg_a1", "steer-1", "steer-2", "msg_u2", "steer-end"])
  })

  it("writes content edits into a message that a later insertion moves", () => {
    const messages = session()
    applyEdits(messages, [
      { type: "insert-message", afterMessageId: null, message: inserted("history", "so far") },
      { type: "set-text", messageId: "msg_u1", partId: "u1", text: "§1§ hello" },
    ])
    expect(ids(messages)).toEqual(["history", "msg_u1", "msg_a1", "msg_u2"])
    expect(visibleText(partById(messages, "u1"))).toBe("§1§ hello")
  })

  const good: Edit[] = [
    { type: "set-text", messageId: "msg_u1", partId: "u1", text: "§1§ hello" },
    { type: "insert-part", messageId: "msg_u1", beforePartId: "f1", partId: "f1-tag", text: "§2§ " },
    { type: "set-tool-result", messageId: "msg_a1", partId: "t1", text: "§5§ output" },
    { type: "set-tool-input", messageId: "msg_a1", partId: "t2", input: {} },
    { type: "remove-part", messageId: "msg_u1", partId: "f2" },
    { type: "insert-message", afterMessageId: null, message: inserted("history", "so far") },
    { type: "insert-message", afterMessageId: "msg_a1", message: inserted("steer", "drop things") },
    { type: "remove-message", messageId: "msg_u2" },
  ]

  it.each<[string, Edit, string]>([
    [
      "a set-text on an unknown message",
      { type: "set-text", messageId: "msg_x", partId: "u1", text: "x" },
      "edit refers to message msg_x, which is missing",
    ],
    [
      "a set-text on a part of another message",
      { type: "set-text", messageId: "msg_a1", partId: "u1", text: "x" },
      "edit refers to part u1 of message msg_a1, which is missing",
    ],
    [
      "a set-text on a tool part",
      { type: "set-text", messageId: "msg_a1", partId: "t1", text: "x" },
      "edit expected text part t1, found a tool part",
    ],
    [
      "a set-tool-result on a text part",
      { type: "set-tool-result", messageId: "msg_u1", partId: "u1", text: "x" },
      "edit expected tool part u1, found a text part",
    ],
    [
      "a set-tool-result on a tool that has not finished",
      { type: "set-tool-result", messageId: "msg_a1", partId: "t3", text: "x" },
      "edit sets the result of tool part t3, which has not finished",
    ],
    [
      "a set-tool-input on a file part",
      { type: "set-tool-input", messageId: "msg_u1", partId: "f1", input: {} },
      "edit expected tool part f1, found a file part",
    ],
    [
      "an insert-part before a missing part",
      { type: "insert-part", messageId: "msg_u1", beforePartId: "gone", partId: "x", text: "x" },
      "edit refers to part gone of message msg_u1, which is missing",
    ],
    [
      "a remove-part of a missing part",
      { type: "remove-part", messageId: "msg_a1", partId: "f1" },
      "edit refers to part f1 of message msg_a1, which is missing",
    ],
    [
      "a remove-message of a missing message",
      { type: "remove-message", messageId: "msg_x" },
      "edit removes message msg_x, which is missing",
    ],
    [
      "an insert-message after a missing message",
      { type: "insert-message", afterMessageId: "msg_x", message: inserted("late", "x") },
      "edit inserts after message msg_x, which is missing",
    ],
    [
      "an insert-message after a message being removed",
      { type: "insert-message", afterMessageId: "msg_u2", message: inserted("late", "x") },
      "edit inserts after message msg_u2, which is missing",
    ],
    [
      "an insert-message whose id already exists",
      { type: "insert-message", afterMessageId: null, message: inserted("msg_a1", "x") },
      "edit inserts message msg_a1, which already exists",
    ],
  ])("throws on %s and changes nothing", (_name, bad, message) => {
    for (const edits of [[...good, bad], [bad, ...good]]) {
      const messages = session()
      const before = structuredClone(messages)
      const beforeJson = JSON.stringify(messages)
      const toolStates = (): unknown[] =>
        messages.flatMap((entry) => entry.parts).map((part) => (part.type === "tool" ? part.state : null))
      const states = toolStates()
      expect(() => applyEdits(messages, edits)).toThrow(message)
      expect(messages).toEqual(before)
      expect(JSON.stringify(messages)).toBe(beforeJson)
      // Not even a replaced state object: the host's objects are exactly the ones it passed.
      expect(toolStates()).toEqual(states)
      messages
        .flatMap((entry) => entry.parts)
        .forEach((part, index) => {
          if (part.type === "tool") expect(part.state).toBe(states[index])
        })
    }
  })

  it("applies the good edits of that list when nothing is wrong", () => {
    const messages = session()
    applyEdits(messages, good)
    expect(ids(messages)).toEqual(["history", "msg_u1", "msg_a1", "steer"])
    expect(messages[1]?.parts.map((part) => part.id)).toEqual(["u1", "f1-tag", "f1"])
    expect(visibleText(partById(messages, "t1"))).toBe("§5§ output")
    expect(toolPart(messages, "t2").state.input).toEqual({})
  })

  it("gives identical results on two fresh copies", () => {
    const first = freshCopy(session())
    const second = freshCopy(session())
    applyEdits(first, good)
    applyEdits(second, good)
    expect(JSON.stringify(first)).toBe(JSON.stringify(second))
  })

  it("finds parts named out of their order and a message named again after another (each search walks on from the last find)", () => {
    const messages = session()
    applyEdits(messages, [
      { type: "set-tool-result", messageId: "msg_a1", partId: "t2", text: "§6§ error text" },
      { type: "set-text", messageId: "msg_a1", partId: "a1", text: "§4§ answer" },
      { type: "set-text", messageId: "msg_u2", partId: "u2", text: "§8§ thanks" },
      { type: "set-tool-result", messageId: "msg_a1", partId: "t1", text: "§5§ output" },
      { type: "set-text", messageId: "msg_u1", partId: "u1", text: "§1§ hello" },
    ])
    expect(visibleText(partById(messages, "a1"))).toBe("§4§ answer")
    expect(visibleText(partById(messages, "t1"))).toBe("§5§ output")
    expect(toolPart(messages, "t2").state).toMatchObject({ status: "error", error: "§6§ error text" })
    expect(visibleText(partById(messages, "u1"))).toBe("§1§ hello")
    expect(visibleText(partById(messages, "u2"))).toBe("§8§ thanks")
  })

  it("applies several lists as one: a bad edit in the second leaves the first unwritten", () => {
    const messages = session()
    const before = JSON.stringify(messages)
    const bad: Edit = { type: "remove-message", messageId: "msg_x" }
    expect(() => applyEdits(messages, good, [bad])).toThrow("edit removes message msg_x, which is missing")
    expect(JSON.stringify(messages)).toBe(before)
    applyEdits(messages, good.slice(0, 4), good.slice(4))
    expect(ids(messages)).toEqual(["history", "msg_u1", "msg_a1", "steer"])
    expect(messages[1]?.parts.map((part) => part.id)).toEqual(["u1", "f1-tag", "f1"])
  })

  it("does nothing with no edits", () => {
    const messages = session()
    const before = JSON.stringify(messages)
    applyEdits(messages, [])
    expect(JSON.stringify(messages)).toBe(before)
  })
})

describe("applyRenderedEdits", () => {
  /** One pass's render of `messages` over a session of ingested items (one dropped): its edits and their positions. */
  const rendered = (messages: HostMessage[], foldedThroughSeq = 0): RenderedList => {
    const state = ingestedState(messages)
    markDropped(state, "t1")
    if (foldedThroughSeq > 0) state.applied = { ...state.applied, history: { foldedThroughSeq, text: "What happened so far.", tokens: 4 } }
    const memo = createMessageMemo()
    beginPass(memo, messages)
    const view = buildLiveView({ messages, state, protectedTokens: 0, memo })
    return { messages, ...renderPromptPlaced({ messages, state, tagsVisible: true, placements: [], memo, view }) }
  }
  const contentEdits = (edits: readonly Edit[]): number =>
    edits.filter((edit) => edit.type === "set-text" || edit.type === "set-tool-result" || edit.type === "set-tool-input").length

  it("writes every content edit of the pass's own messages by position, as looking parts up by id does", () => {
    const messages = session()
    const pass = rendered(messages)
    const byId = freshCopy(messages)
    applyEdits(byId, pass.edits)
    expect(contentEdits(pass.edits)).toBeGreaterThan(3)
    expect(applyRenderedEdits(messages, pass, pass.edits)).toBe(contentEdits(pass.edits))
    expect(messages).toEqual(byId)
    expect(visibleText(partById(messages, "t1"))).toContain("[dropped")
  })

  it("looks parts up by id in a copy of the messages, and in a list of edits the pass did not render", () => {
    const messages = session()
    const pass = rendered(messages)
    const expected = freshCopy(messages)
    applyEdits(expected, pass.edits)
    const copy = freshCopy(messages)
    expect(applyRenderedEdits(copy, pass, pass.edits)).toBe(0)
    expect(copy).toEqual(expected)
    expect(applyRenderedEdits(messages, pass, pass.edits.map((edit) => ({ ...edit })))).toBe(0)
    expect(messages).toEqual(expected)
  })

  it("looks every edit up by id when the positions name a message past the end of the list", () => {
    const messages = session()
    const pass = rendered(messages)
    if (pass.placed === null) throw new Error("the pass placed its edits")
    const expected = freshCopy(messages)
    applyEdits(expected, pass.edits)
    const beyond: RenderedList = { ...pass, placed: { ...pass.placed, liveFrom: messages.length } }
    expect(applyRenderedEdits(messages, beyond, pass.edits)).toBe(0)
    expect(messages).toEqual(expected)
  })

  it("looks every edit up by id, writing nothing by position, when one position names a part its message lacks", () => {
    const messages = session()
    const pass = rendered(messages)
    if (pass.placed === null) throw new Error("the pass placed its edits")
    const expected = freshCopy(messages)
    applyEdits(expected, pass.edits)
    const targets = Int32Array.from(pass.placed.targets)
    const last = targets.length - 1
    expect(targets[last]).toBeGreaterThanOrEqual(0)
    targets[last] = 99
    const wrong: RenderedList = { ...pass, placed: { ...pass.placed, targets } }
    expect(applyRenderedEdits(messages, wrong, pass.edits)).toBe(0)
    expect(messages).toEqual(expected)
  })

  it("writes the placed edits and the ones looked up by id in list order: a later edit of the same part wins", () => {
    const messages = session()
    const pass = rendered(messages)
    const later: Edit = { type: "set-text", messageId: "msg_u2", partId: "u2", text: "written last" }
    const expected = freshCopy(messages)
    applyEdits(expected, pass.edits, [later])
    expect(applyRenderedEdits(messages, pass, pass.edits, [later])).toBe(contentEdits(pass.edits))
    expect(messages).toEqual(expected)
    expect(visibleText(partById(messages, "u2"))).toBe("written last")
  })

  it("takes the folded messages off the head of the pass's own messages, as removing them by id does", () => {
    const messages = [...session(), userMessage({ id: "msg_u3", parts: [text("u3", "and now?")] })]
    const pass = rendered(messages, 2)
    expect(pass.placed?.removed).toBe(2)
    const byId = freshCopy(messages)
    applyEdits(byId, pass.edits)
    applyRenderedEdits(messages, pass, pass.edits)
    expect(messages).toEqual(byId)
    expect(ids(messages)).toEqual(["mc-history-2", "msg_u2", "msg_u3"])
  })

  it("refuses, writing nothing, a message inserted after one the placed removals take off the head", () => {
    const messages = [...session(), userMessage({ id: "msg_u3", parts: [text("u3", "and now?")] })]
    const pass = rendered(messages, 2)
    const before = freshCopy(messages)
    const steer: Edit = { type: "insert-message", afterMessageId: "msg_u1", message: inserted("steer", "a hint") }
    expect(() => applyRenderedEdits(messages, pass, pass.edits, [steer])).toThrow(/inserts after message msg_u1, which is missing/)
    expect(messages).toEqual(before)
  })

  it("writes nothing when a placed part is gone from the copy and its id is too", () => {
    const messages = session()
    const pass = rendered(messages)
    // The host's copy changed after the pass: the last message lost its part, whose edit the pass placed last.
    ;(messages[2] as HostMessage).parts.length = 0
    const before = freshCopy(messages)
    const state = toolPart(messages, "t1").state
    // First in list order, and written by replacing the tool's state object.
    const input: Edit = { type: "set-tool-input", messageId: "msg_a1", partId: "t1", input: { path: "b.txt" } }
    expect(() => applyRenderedEdits(messages, pass, [input], pass.edits)).toThrow(/part u2 of message msg_u2, which is missing/)
    expect(messages).toEqual(before)
    expect(toolPart(messages, "t1").state).toBe(state)
  })

  it("writes nothing when an edit of another list does not fit", () => {
    const messages = session()
    const pass = rendered(messages)
    const before = freshCopy(messages)
    const missing: Edit = { type: "set-text", messageId: "msg_u2", partId: "gone", text: "x" }
    expect(() => applyRenderedEdits(messages, pass, pass.edits, [missing])).toThrow(/part gone/)
    expect(messages).toEqual(before)
  })
})
