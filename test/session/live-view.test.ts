import { describe, expect, it } from "vitest"
import { buildLiveView } from "../../src/session/live-view.js"
import { beginPass, createMessageMemo } from "../../src/session/message-memo.js"
import type { HostMessage } from "../../src/transcript/host-message.js"
import {
  assistantMessage,
  completed,
  failed,
  freshCopy,
  inlinedFile,
  mediaFile,
  pending,
  reasoning,
  running,
  syntheticText,
  text,
  tool,
  userMessage,
} from "../helpers/host-messages.js"
import { ingestedState, liveView, tagOf, tokCounter, toks } from "../helpers/pure-session.js"

/** Four messages of 100, 200, 300 and 400 tokens; the third holds a tool arc of 250 (output) + 50 (call). */
const session = (): HostMessage[] => [
  userMessage({ id: "m1", parts: [text("p1", toks(100))] }),
  assistantMessage({ id: "m2", parts: [text("p2", toks(150)), reasoning("r2", toks(50))] }),
  assistantMessage({ id: "m3", parts: [tool("t3", "read", completed({ path: toks(50) }, toks(250)))] }),
  userMessage({ id: "m4", parts: [text("p4", toks(400))] }),
]

describe("buildLiveView", () => {
  it.each([
    ["nothing for a zero window", 0, 4],
    ["the newest message, whatever its size", 1, 3],
    ["the newest message only when it alone fills the window", 400, 3],
    ["not the crossing message while less than half of it lies inside the window", 549, 3],
    ["the crossing message, whole, once half of it lies inside", 550, 2],
    ["up to the message that fills the window exactly", 700, 2],
    ["not the next while less than half of it lies inside", 799, 2],
    ["one more once half of it does", 800, 1],
    ["everything for a window larger than the session", 1_000_000, 0],
  ])("protects %s (%i tokens)", (_name, protectedTokens, protectedFrom) => {
    const view = liveView(session(), { protectedTokens })
    expect(view.protectedFrom).toBe(protectedFrom)
    expect(view.items.map((item) => [item.tag.partId, item.protected])).toEqual(
      ["p1", "p2", "t3", "p4"].map((partId, index) => [partId, index >= protectedFrom]),
    )
  })

  it("measures the live tail by every part, reasoning and tool calls included", () => {
    expect(liveView(session()).liveTokens).toBe(1_000)
  })

  it("describes each tagged item", () => {
    const messages = session()
    const state = ingestedState(messages)
    const view = buildLiveView({ messages, state, protectedTokens: 550 })
    expect(view.items.map((item) => ({ ...item, tag: item.tag.tag }))).toEqual([
      {
        tag: 1,
        messageId: "m1",
        messageIndex: 0,
        messageSeq: 1,
        role: "user",
        contentTokens: 100,
        callTokens: 0,
        final: true,
        pruned: false,
        newest: false,
        protected: false,
        input: null,
      },
      {
        tag: 2,
        messageId: "m2",
        messageIndex: 1,
        messageSeq: 2,
        role: "assistant",
        contentTokens: 150,
        callTokens: 0,
        final: true,
        pruned: false,
        newest: false,
        protected: false,
        input: null,
      },
      {
        tag: 3,
        messageId: "m3",
        messageIndex: 2,
        messageSeq: 3,
        role: "assistant",
        contentTokens: 250,
        callTokens: 50,
        final: true,
        pruned: false,
        newest: false,
        protected: true,
        input: { editedFile: null, action: null },
      },
      {
        tag: 4,
        messageId: "m4",
        messageIndex: 3,
        messageSeq: 4,
        role: "user",
        contentTokens: 400,
        callTokens: 0,
        final: true,
        pruned: false,
        newest: true,
        protected: true,
        input: null,
      },
    ])
    expect([...view.byTag.keys()]).toEqual([1, 2, 3, 4])
    expect(view.byTag.get(3)?.tag).toBe(tagOf(state, "t3"))
    expect(view.newestSeq).toBe(4)
    expect(view.messages).toEqual(messages)
  })

  it("counts a message's own text apart from its inlined file, and a media file as nothing", () => {
    const messages = [
      userMessage({
        id: "m1",
        parts: [
          text("p1", toks(7)),
          inlinedFile("f1", "a.txt", [toks(5), toks(3)]),
          mediaFile("f2", "shot.png"),
          text("p1b", toks(2)),
        ],
      }),
    ]
    const view = liveView(messages)
    expect(view.items.map((item) => [item.tag.kind, item.tag.partId, item.contentTokens])).toEqual([
      ["message", "p1", 9],
      ["file", "f1", 8],
      ["file", "f2", 0],
    ])
    expect(view.liveTokens).toBe(17)
  })

  it("counts the note OpenCode puts before an attached image as message text, not as the image's", () => {
    const messages = [
      userMessage({
        id: "m1",
        parts: [text("p1", toks(3)), syntheticText("note", toks(6)), mediaFile("f1", "shot.png")],
      }),
    ]
    expect(liveView(messages).items.map((item) => [item.tag.partId, item.contentTokens])).toEqual([
      ["p1", 9],
      ["f1", 0],
    ])
  })

  it("counts a failed tool's error text as its content", () => {
    const messages = [assistantMessage({ id: "m1", parts: [tool("t1", "bash", failed({}, toks(12)))] })]
    expect(liveView(messages).items[0]).toMatchObject({ contentTokens: 12, final: true })
  })

  it("leaves out the messages folded into history", () => {
    const messages = session()
    const state = ingestedState(messages)
    state.applied = { ...state.applied, history: { foldedThroughSeq: 2, text: "so far", tokens: 5 } }
    const view = buildLiveView({ messages, state, protectedTokens: 400 })
    expect(view.messages.map((message) => message.info.id)).toEqual(["m3", "m4"])
    expect(view.items.map((item) => [item.tag.tag, item.messageIndex, item.protected])).toEqual([
      [3, 0, false],
      [4, 1, true],
    ])
    expect(view.byTag.has(1)).toBe(false)
    expect(view.liveTokens).toBe(700)
    expect(view.protectedFrom).toBe(1)
  })

  it("keeps a message the store has not seen, whatever the history", () => {
    const messages = session()
    const state = ingestedState(messages)
    state.applied = { ...state.applied, history: { foldedThroughSeq: 4, text: "so far", tokens: 5 } }
    const later = [...messages, userMessage({ id: "m5", parts: [text("p5", toks(3))] })]
    const view = buildLiveView({ messages: later, state, protectedTokens: 0 })
    expect(view.messages.map((message) => message.info.id)).toEqual(["m5"])
    expect(view.items).toEqual([])
    expect(view.newestSeq).toBe(0)
  })

  it.each([
    ["an assistant message with a running tool", [tool("t9", "bash", running())], "assistant", true],
    ["an assistant message with a pending tool", [tool("t9", "bash", pending())], "assistant", true],
    ["an assistant message whose tools finished", [tool("t9", "bash", completed({}, "ok"))], "assistant", false],
    ["a user message", [text("u9", "go on")], "user", false],
  ] as const)("reports mid-tool when the newest message is %s: %s", (_name, parts, role, midTool) => {
    const build = role === "user" ? userMessage : assistantMessage
    const messages = [...session(), build({ id: "m9", parts: [...parts] })]
    expect(liveView(messages).midTool).toBe(midTool)
  })

  it("marks an output the host pruned, which carries no prefix", () => {
    const output = completed({ command: "ls" }, "a.ts b.ts")
    if (output.status !== "completed") throw new Error("a completed state")
    const pruned = { ...output, time: { ...output.time, compacted: 30 } }
    const messages = [
      userMessage({ id: "m1", parts: [text("p1", "list it")] }),
      assistantMessage({ id: "m2", parts: [tool("t1", "bash", pruned), tool("t2", "bash", output)] }),
    ]
    const items = liveView(messages).items
    expect(items.map((item) => [item.tag.partId, item.pruned])).toEqual([
      ["p1", false],
      ["t1", true],
      ["t2", false],
    ])
  })

  it("is not mid-tool for a running tool in an older message", () => {
    const messages = [
      assistantMessage({ id: "m1", parts: [tool("t1", "bash", running())] }),
      userMessage({ id: "m2", parts: [text("p2", "next")] }),
    ]
    const view = liveView(messages)
    expect(view.midTool).toBe(false)
    expect(view.byTag.get(1)).toMatchObject({ final: false })
  })

  it("prefers stored counts over the live content", () => {
    const messages = [assistantMessage({ id: "m1", parts: [syntheticText("s1", toks(4))] })]
    const state = ingestedState(messages, tokCounter)
    const changed = [assistantMessage({ id: "m1", parts: [syntheticText("s1", toks(40))] })]
    expect(buildLiveView({ messages: changed, state, protectedTokens: 0 }).liveTokens).toBe(4)
  })
})

describe("buildLiveView with a memo", () => {
  it("shares the last view's arrays when every message is as it saw them, and a later view never changes them", () => {
    const messages = session()
    const state = ingestedState(messages)
    const memo = createMessageMemo()
    const viewOf = (list: HostMessage[]) => {
      beginPass(memo, list)
      return buildLiveView({ messages: list, state, protectedTokens: 550, memo })
    }
    const first = viewOf(freshCopy(messages))
    const again = viewOf(freshCopy(messages))
    expect(again.facts).toBe(first.facts)
    expect(again.items).toBe(first.items)
    // The view's own arrays (its facts' items are re-placed in place by later views, as before: the memo keeps them).
    const seen = structuredClone({ items: again.items, facts: again.facts.length, liveTokens: again.liveTokens })

    const grown = [...freshCopy(messages), assistantMessage({ id: "m5", parts: [text("p5", toks(20))] })]
    const later = viewOf(grown)
    expect(later).toEqual(buildLiveView({ messages: grown, state, protectedTokens: 550 }))
    expect({ items: again.items, facts: again.facts.length, liveTokens: again.liveTokens }).toEqual(seen)
  })
})
