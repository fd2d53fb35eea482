import { describe, expect, it } from "vitest"
import type { SessionState } from "../../src/session/session-state.js"
import { buildLiveView } from "../../src/session/live-view.js"
import { keptNewest, planReclaim, reclaimableItems, reclaimableTokens, type ReclaimMode } from "../../src/reduce/plan-reclaim.js"
import type { HostMessage } from "../../src/transcript/host-message.js"
import type { HostToolState as ToolState } from "../../src/transcript/host-message.js"
import { beginPass, createMessageMemo, endPass } from "../../src/session/message-memo.js"
import { applyPlanToState, planIngest } from "../../src/session/plan-ingest.js"
import { emptySessionState } from "../../src/session/session-state.js"
import { assistantMessage, completed, failed, freshCopy, running, TEST_SESSION, text, tool, userMessage } from "../helpers/host-messages.js"
import { ingestedState, markDropped, tagOf, tokCounter, toks } from "../helpers/pure-session.js"
import { createReduceCaches } from "../../src/reduce/reduce-caches.js"

/** An assistant message holding one tool arc: `output` tokens of result and `call` tokens of input. */
function arc(
  id: string,
  name: string,
  output: number,
  options: { call?: number; state?: ToolState } = {},
): HostMessage {
  const input = { note: toks(options.call ?? 0) }
  return assistantMessage({ id: `m-${id}`, parts: [tool(id, name, options.state ?? completed(input, toks(output)))] })
}

/**
 * Every rule at once (message sequence in brackets): the execute boundary is after [14] "failed"; a 2,000-token
 * protected window covers "recent" and the newest message.
 */
const rich = (): HostMessage[] => [
  userMessage({ id: "m-u1", parts: [text("u1", toks(100))] }), // [1] a message: never reclaimed
  arc("old-read", "read", 1_000), // [2]
  arc("gone", "read", 1_000), // [3] dropped already
  arc("small", "bash", 199, { call: 50 }), // [4] 249-token arc
  arc("exact", "bash", 200, { call: 50 }), // [5] 250-token arc
  arc("todo-old", "todowrite", 500), // [6]
  arc("todo-new", "todowrite", 500), // [7] the newest todowrite
  arc("red-1", "ctx_reduce", 300), // [8]
  arc("red-2", "ctx_reduce", 300), // [9] \
  arc("red-3", "ctx_reduce", 300), // [10] | the newest three ctx_reduce results
  arc("red-4", "ctx_reduce", 300), // [11] /
  arc("grep", "grep", 800), // [12] the only search output
  arc("edit", "edit", 900), // [13] the only edit output
  arc("failed", "bash", 0, { state: failed({}, toks(400)) }), // [14] the execute boundary
  arc("late-read", "read", 600), // [15] the newest read
  arc("running", "bash", 0, { state: running({ note: toks(300) }) }), // [16] unfinished
  arc("recent", "bash", 2_000), // [17] protected
  arc("newest", "bash", 700), // [18] protected, the newest message
]

const BOUNDARY = 14

function richState(): { messages: HostMessage[]; state: SessionState } {
  const messages = rich()
  const state = ingestedState(messages)
  markDropped(state, "gone")
  return { messages, state }
}

const planned = (mode: ReclaimMode, boundarySeq = BOUNDARY, protectedTokens = 2_000): string[] => {
  const { messages, state } = richState()
  const view = buildLiveView({ messages, state, protectedTokens })
  const byTag = new Map([...state.tagsByNumber.values()].map((tag) => [tag.tag, tag.partId]))
  return planReclaim({ view, mode, boundarySeq }).map((tag) => byTag.get(tag) ?? `?${tag}`)
}

describe("planReclaim", () => {
  it.each<[ReclaimMode, string[]]>([
    ["age", ["old-read", "exact", "todo-old", "red-1", "grep", "edit", "failed"]],
    ["force", ["old-read", "exact", "todo-old", "red-1", "failed"]],
    ["emergency", ["old-read", "exact", "todo-old", "red-1", "grep", "edit", "failed", "late-read", "recent"]],
  ])("takes in %s mode exactly %j", (mode, partIds) => {
    expect(planned(mode)).toEqual(partIds)
  })

  it("takes nothing by age before the first execute pass", () => {
    expect(planned("age", 0)).toEqual([])
  })

  it.each([
    [1, []],
    [2, ["old-read"]],
    [4, ["old-read"]],
    [5, ["old-read", "exact"]],
    [17, ["old-read", "exact", "todo-old", "red-1", "grep", "edit", "failed", "late-read"]],
  ])("takes by age only output at or before the boundary (boundary %i)", (boundarySeq, partIds) => {
    expect(planned("age", boundarySeq)).toEqual(partIds)
  })

  it.each<[number, number, boolean]>([
    [249, 0, false],
    [250, 0, true],
    [200, 49, false],
    [200, 50, true],
    [0, 250, true],
  ])("counts the whole arc against the 250-token minimum (output %i + call %i: %s)", (output, call, taken) => {
    const messages = [arc("t", "bash", output, { call }), userMessage({ id: "m-next", parts: [text("u", "next")] })]
    const view = buildLiveView({ messages, state: ingestedState(messages), protectedTokens: 0 })
    for (const mode of ["age", "force", "emergency"] as const) {
      expect(planReclaim({ view, mode, boundarySeq: 9 }).length > 0).toBe(taken)
    }
  })

  it.each<ReclaimMode>(["age", "force", "emergency"])("never takes an unfinished tool in %s mode", (mode) => {
    expect(planned(mode)).not.toContain("running")
    const messages = [arc("big", "bash", 0, { state: running({ note: toks(5_000) }) }), arc("after", "bash", 10)]
    const view = buildLiveView({ messages, state: ingestedState(messages), protectedTokens: 0 })
    expect(planReclaim({ view, mode, boundarySeq: 9 })).toEqual([])
  })

  it.each<ReclaimMode>(["age", "force", "emergency"])("keeps the newest todowrite and the newest three ctx_reduce results in %s mode", (mode) => {
    const taken = planned(mode)
    expect(taken).not.toContain("todo-new")
    expect(taken.filter((partId) => partId.startsWith("red-"))).toEqual(["red-1"])
  })

  it("protects the whole protected window in age and force mode, and yields it in an emergency but for the newest message", () => {
    expect(planned("age", 18, 1_000_000)).toEqual([])
    expect(planned("force", 18, 1_000_000)).toEqual([])
    expect(planned("emergency", 18, 1_000_000)).toEqual(planned("emergency", 18, 0))
    expect(planned("emergency", 18, 0)).not.toContain("newest")
  })

  it("keeps every result of the newest message in an emergency", () => {
    const messages = [
      arc("old", "bash", 500),
      assistantMessage({
        id: "m-last",
        parts: [tool("a", "bash", completed({}, toks(5_000))), tool("b", "read", completed({}, toks(5_000)))],
      }),
    ]
    const state = ingestedState(messages)
    const view = buildLiveView({ messages, state, protectedTokens: 0 })
    expect(planReclaim({ view, mode: "emergency", boundarySeq: 0 })).toEqual([tagOf(state, "old").tag])
  })

  it.each<[string, number[], boolean[]]>([
    ["the newest when it alone covers a quarter", [1_000, 1_000, 1_000, 1_000], [true, true, true, false]],
    ["the newest when it is most of the category", [300, 300, 300, 3_000], [true, true, true, false]],
    // Share 975: the three newest fit (900); the large oldest one would stretch it, so it goes.
    ["the newer outputs that fit in a quarter, not a large older one", [3_000, 300, 300, 300], [true, false, false, false]],
    // Share 400: the newest (300) always; the next would make 600.
    ["only the newest when the next does not fit", [500, 500, 300, 300], [true, true, true, false]],
    // Share 1,000 of 4,000: 400 + 400 = 800 fit, the next 400 would make 1,200.
    ["as many newest as fit", [1_600, 800, 400, 400, 400], [true, true, true, false, false]],
    ["the only output", [4_000], [false]],
  ])("reserves %s (reads of %j, oldest first)", (_name, sizes, taken) => {
    const messages = [
      ...sizes.map((size, index) => arc(`r${index}`, "read", size)),
      userMessage({ id: "m-end", parts: [text("u", "go")] }),
    ]
    const state = ingestedState(messages)
    const view = buildLiveView({ messages, state, protectedTokens: 0 })
    const force = new Set(planReclaim({ view, mode: "force", boundarySeq: 0 }))
    expect(sizes.map((_, index) => force.has(tagOf(state, `r${index}`).tag))).toEqual(taken)
  })

  it.each([
    ["edit", ["edit", "write", "multiedit", "apply_patch", "patch"]],
    ["search", ["grep", "glob", "codesearch", "websearch", "search"]],
    ["navigation", ["read", "list", "ls", "view"]],
  ])("reserves the %s category across its tools", (_category, tools) => {
    const messages = [...tools.map((name, index) => arc(`c${index}`, name, 1_000)), arc("bash", "bash", 1_000)]
    const state = ingestedState(messages)
    const view = buildLiveView({ messages, state, protectedTokens: 0 })
    const force = planReclaim({ view, mode: "force", boundarySeq: 0 })
    const newest = tagOf(state, `c${tools.length - 1}`).tag
    expect(force).not.toContain(newest)
    expect(force).toContain(tagOf(state, "c0").tag)
    // bash has no reserve: its only output goes.
    expect(force).toContain(tagOf(state, "bash").tag)
  })

  // The old hand-written lists missed the other hosts' names and any capitalised name; the host tool table has them.
  it.each([
    ["edit", ["Edit", "create", "notebookedit", "str_replace_editor", "MultiEdit"]],
    ["search", ["find_file", "search_dir", "search_file", "find", "web_search", "Grep"]],
    ["navigation", ["open", "cat", "goto", "scroll_up", "scroll_down", "Read"]],
  ])("reserves the %s category for every tool the host tool table puts in it", (_category, tools) => {
    const messages = [...tools.map((name, index) => arc(`c${index}`, name, 1_000)), arc("bash", "bash", 1_000)]
    const state = ingestedState(messages)
    const view = buildLiveView({ messages, state, protectedTokens: 0 })
    const force = planReclaim({ view, mode: "force", boundarySeq: 0 })
    expect(force).not.toContain(tagOf(state, `c${tools.length - 1}`).tag)
    expect(force).toContain(tagOf(state, "c0").tag)
  })

  it.each(["webfetch", "fetch", "think", "todoread", "bash"])("keeps no reserve of %s output", (name) => {
    const messages = [arc("only", name, 1_000), userMessage({ id: "m-end", parts: [text("u", "go")] })]
    const state = ingestedState(messages)
    const view = buildLiveView({ messages, state, protectedTokens: 0 })
    expect(planReclaim({ view, mode: "force", boundarySeq: 0 })).toEqual([tagOf(state, "only").tag])
  })

  it("does not let a newer think call take the newest read's place in the navigation reserve", () => {
    const messages = [
      arc("r0", "read", 1_000),
      arc("r1", "read", 1_000),
      arc("r2", "read", 1_000),
      arc("note", "think", 1_000),
      userMessage({ id: "m-end", parts: [text("u", "go")] }),
    ]
    const state = ingestedState(messages)
    const view = buildLiveView({ messages, state, protectedTokens: 0 })
    const force = planReclaim({ view, mode: "force", boundarySeq: 0 })
    expect(force).not.toContain(tagOf(state, "r2").tag)
    expect(force).toContain(tagOf(state, "note").tag)
  })

  it("counts only live outputs toward a category's reserve", () => {
    const messages = [
      arc("r0", "read", 1_000),
      arc("r1", "read", 1_000),
      arc("r2", "read", 4_000),
      userMessage({ id: "m-end", parts: [text("u", "go")] }),
    ]
    const state = ingestedState(messages)
    markDropped(state, "r2")
    const view = buildLiveView({ messages, state, protectedTokens: 0 })
    expect(planReclaim({ view, mode: "force", boundarySeq: 0 })).toEqual([tagOf(state, "r0").tag])
  })
})

describe("keptNewest", () => {
  it("names the newest todowrite and the newest three ctx_reduce results", () => {
    const { messages, state } = richState()
    const view = buildLiveView({ messages, state, protectedTokens: 0 })
    const kept = [...keptNewest(view.items)].map((tag) => state.tagsByNumber.get(tag)?.partId).sort()
    expect(kept).toEqual(["red-2", "red-3", "red-4", "todo-new"])
  })
})

describe("reclaimableItems", () => {
  const partsOf = (state: SessionState, items: readonly { tag: { tag: number } }[]): string[] =>
    items.map((item) => state.tagsByNumber.get(item.tag.tag)?.partId ?? "?")

  it("takes finished output of 250-token arcs outside the protected window, but the kept newest, the queued and the dropped", () => {
    const { messages, state } = richState()
    const view = buildLiveView({ messages, state, protectedTokens: 2_000 })
    const caches = createReduceCaches()
    expect(partsOf(state, reclaimableItems(view, new Set(), caches))).toEqual(["old-read", "exact", "todo-old", "red-1", "grep", "edit", "failed", "late-read"])
    const queued = new Map([[tagOf(state, "grep").tag, "queued"]])
    expect(partsOf(state, reclaimableItems(view, queued, caches))).toEqual(["old-read", "exact", "todo-old", "red-1", "edit", "failed", "late-read"])
    const arcs = reclaimableItems(view, queued, caches).map((item) => item.contentTokens + item.callTokens)
    expect(reclaimableTokens(view, queued, caches)).toBe(arcs.reduce((sum, tokens) => sum + tokens, 0))
    expect(arcs.every((tokens) => tokens >= 250)).toBe(true)
  })

  it("answers a view that shares the last view's items from the last answer, and a new queue or new items afresh", () => {
    const { messages, state } = richState()
    const first = buildLiveView({ messages, state, protectedTokens: 2_000 })
    const caches = createReduceCaches()
    const answer = reclaimableItems(first, new Set(), caches)
    expect(reclaimableItems({ ...first }, new Set(), caches)).toBe(answer)
    expect(reclaimableItems(first, new Set([tagOf(state, "edit").tag]), caches)).not.toContain(first.items.find((item) => state.tagsByNumber.get(item.tag.tag)?.partId === "edit"))
    // The same view's items placed anew (a wider window protects more): another array, another answer.
    const wider = buildLiveView({ messages, state, protectedTokens: 4_000 })
    expect(partsOf(state, reclaimableItems(wider, new Set(), caches))).toEqual(["old-read", "exact", "todo-old", "red-1", "grep", "edit"])
  })

  it("takes up from the last view's answer as the session grows pass by pass, and answers as a view made afresh", () => {
    // Later kept-newest results (a todowrite, a ctx_reduce) change what is kept; every third pass queues a drop; one
    // drop lands between passes (the views share only the items before its message).
    const all = [
      ...rich(),
      arc("read-2", "read", 900),
      arc("todo-3", "todowrite", 500),
      arc("bash-2", "bash", 800),
      arc("red-5", "ctx_reduce", 300),
      arc("read-3", "read", 700),
      arc("bash-3", "bash", 1_200),
      arc("bash-4", "bash", 400),
    ]
    const state = emptySessionState(TEST_SESSION)
    const memo = createMessageMemo()
    const caches = createReduceCaches(memo.sharedItems)
    let takenUp = 0
    for (let length = 8; length <= all.length; length += 1) {
      const messages = freshCopy(all.slice(0, length))
      beginPass(memo, messages)
      applyPlanToState(state, planIngest({ state, messages, counter: tokCounter, memo }))
      // A drop lands as an execute pass lands it: a new record in the session's map (records never change in place).
      if (length === 23) state.tagsByPart.set(tagOf(state, "grep").partId, { ...tagOf(state, "grep"), status: "dropped", droppedReason: "reduce" })
      const queued = length % 3 === 0 ? new Map([[tagOf(state, "old-read").tag, "queued"]]) : new Map<number, string>()
      const view = buildLiveView({ messages, state, protectedTokens: 2_000, memo })
      const fresh = buildLiveView({ messages, state, protectedTokens: 2_000 })
      if ((memo.sharedItems.get(view.items)?.count ?? 0) > 0) takenUp += 1
      expect(partsOf(state, reclaimableItems(view, queued, caches))).toEqual(partsOf(state, reclaimableItems(fresh, queued, createReduceCaches())))
      expect(reclaimableItems(view, queued, caches)).toEqual(reclaimableItems(fresh, queued, createReduceCaches()))
      expect(reclaimableTokens(view, queued, caches)).toBe(reclaimableTokens(fresh, queued, createReduceCaches()))
      endPass(memo)
    }
    expect(takenUp).toBeGreaterThan(5)
  })
})
