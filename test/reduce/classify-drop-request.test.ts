import { describe, expect, it } from "vitest"
import { emptySessionState, type SessionState } from "../../src/session/session-state.js"
import { classifyDropRequest } from "../../src/reduce/classify-drop-request.js"
import { buildLiveView, type LiveView } from "../../src/session/live-view.js"
import type { HostMessage } from "../../src/transcript/host-message.js"
import {
  assistantMessage,
  completed,
  inlinedFile,
  running,
  TEST_SESSION,
  text,
  tool,
  userMessage,
} from "../helpers/host-messages.js"
import { ingestedState, markDropped, tagOf, toks } from "../helpers/pure-session.js"

/**
 * Tags: 1 the user's message, 2 the user's file, 3 the assistant's text, 4 a read (600), 5 a bash still running,
 * 6 an old read the host compacted away (not in the live messages), 7 a dropped read, 8 a queued read, 9 a recent
 * read inside the protected window.
 */
const session = (): HostMessage[] => [
  userMessage({ id: "m1", parts: [text("u1", toks(20)), inlinedFile("f1", "notes.txt", [toks(300)])] }),
  assistantMessage({
    id: "m2",
    parts: [text("a1", toks(40)), tool("read", "read", completed({ path: "a" }, toks(600)))],
  }),
  assistantMessage({ id: "m3", parts: [tool("bash", "bash", running({ command: "make" }))] }),
  assistantMessage({ id: "m4", parts: [tool("compacted", "read", completed({}, toks(100)))] }),
  assistantMessage({ id: "m5", parts: [tool("dropped", "read", completed({}, toks(100)))] }),
  assistantMessage({ id: "m6", parts: [tool("queued", "read", completed({}, toks(100)))] }),
  assistantMessage({ id: "m7", parts: [tool("recent", "grep", completed({}, toks(900)))] }),
]

function setup(): { state: SessionState; view: LiveView } {
  const messages = session()
  const state = ingestedState(messages)
  markDropped(state, "dropped")
  const queued = tagOf(state, "queued").tag
  state.queued.set(queued, { operationId: 1, tag: queued, queuedPass: 1 })
  // The host's compaction removed m4 from what it sends; the last pass saw the rest. 900 tokens protect m7 only.
  const live = messages.filter((message) => message.info.id !== "m4")
  return { state, view: buildLiveView({ messages: live, state, protectedTokens: 900 }) }
}

describe("classifyDropRequest", () => {
  it("orders the session's tags as the fixture says", () => {
    const { state } = setup()
    expect([...state.tagsByNumber.values()].map((tag) => tag.partId)).toEqual([
      "u1",
      "f1",
      "a1",
      "read",
      "bash",
      "compacted",
      "dropped",
      "queued",
      "recent",
    ])
  })

  it.each([
    [0, "no such tag in this session (tags in this session run from 1 to 9)"],
    [10, "no such tag in this session (tags in this session run from 1 to 9)"],
    [7, "already dropped"],
    [8, "already queued"],
    [6, "not in the current context any more (OpenCode's compaction summarized it)"],
    [1, "the user's own message: user messages are never dropped"],
    [5, "its tool call is still waiting for its result"],
  ])("rejects §%i§: %s", (tag, reason) => {
    const { state, view } = setup()
    expect(classifyDropRequest({ tags: [tag], state, view })).toEqual({
      queued: [],
      deferred: [],
      rejected: [{ tag, reason }],
    })
  })

  it("says when the session has no tags at all", () => {
    const state = emptySessionState(TEST_SESSION)
    const view = buildLiveView({ messages: [], state, protectedTokens: 0 })
    expect(classifyDropRequest({ tags: [1], state, view }).rejected).toEqual([
      { tag: 1, reason: "no such tag in this session (this session has no tags yet)" },
    ])
  })

  it("queues finished items outside the protected window, with their content tokens and a label", () => {
    const { state, view } = setup()
    expect(classifyDropRequest({ tags: [4, 2, 3], state, view })).toEqual({
      queued: [
        { tag: 4, tokens: 600, label: "read output" },
        { tag: 2, tokens: 300, label: "file" },
        { tag: 3, tokens: 40, label: "message" },
      ],
      deferred: [],
      rejected: [],
    })
  })

  it("defers a protected item rather than refusing it", () => {
    const { state, view } = setup()
    expect(classifyDropRequest({ tags: [9], state, view })).toEqual({
      queued: [],
      deferred: [{ tag: 9, tokens: 900, label: "grep output" }],
      rejected: [],
    })
  })

  it("sorts a mixed call into queued, deferred and rejected, in the order named", () => {
    const { state, view } = setup()
    const result = classifyDropRequest({ tags: [9, 1, 4, 42, 7], state, view })
    expect(result.queued.map((item) => item.tag)).toEqual([4])
    expect(result.deferred.map((item) => item.tag)).toEqual([9])
    expect(result.rejected.map((item) => item.tag)).toEqual([1, 42, 7])
  })

  it("checks dropped before queued before context", () => {
    const { state, view } = setup()
    const dropped = tagOf(state, "dropped").tag
    state.queued.set(dropped, { operationId: 2, tag: dropped, queuedPass: 1 })
    const compacted = tagOf(state, "compacted").tag
    markDropped(state, "compacted")
    expect(classifyDropRequest({ tags: [dropped, compacted], state, view }).rejected).toEqual([
      { tag: dropped, reason: "already dropped" },
      { tag: compacted, reason: "already dropped" },
    ])
  })
})
