import fc from "fast-check"
import { describe, expect, it } from "vitest"
import type { Placement, SessionState } from "../../src/session/session-state.js"
import { applyEdits } from "../../src/session/apply-edits.js"
import { buildLiveView } from "../../src/session/live-view.js"
import { measurePrompt, type Breakdown } from "../../src/render/measure-prompt.js"
import { renderPrompt } from "../../src/render/render-prompt.js"
import type { HostMessage } from "../../src/transcript/host-message.js"
import { partText } from "../../src/transcript/part-content.js"
import {
  assistantMessage,
  completed,
  freshCopy,
  inlinedFile,
  mediaFile,
  reasoning,
  running,
  syntheticText,
  text,
  tool,
  userMessage,
  wordCounter,
} from "../helpers/host-messages.js"
import { ingestedState, markDropped } from "../helpers/pure-session.js"
import { scenarioArbitrary } from "../helpers/random-session.js"
import { createRenderCaches } from "../../src/render/render-caches.js"

/**
 * Word counts (wordCounter: one token per word; a `§N§ ` prefix is one word):
 *   m1 user       u1 "please fix the parser" 4, inlined notes.txt 3 + 1, media shot.png 0
 *   m2 assistant  reasoning 3, a1 "reading the file now" 4, read call `read {"path":"a.ts"}` 2 + output 5
 *   m3 assistant  bash running: call 2 + "[Tool execution was interrupted]" 4 (no prefix until it finishes)
 *   m4 user       u2 "thanks a lot" 3
 * Tags: u1 1, f1 2, f2 3, a1 4, t1 5, t2 6, u2 7. A 9-token window protects m3 and m4 (6 + 3).
 */
const session = (): HostMessage[] => [
  userMessage({
    id: "m1",
    parts: [
      text("u1", "please fix the parser"),
      inlinedFile("f1", "notes.txt", ["alpha beta gamma", "delta"]),
      mediaFile("f2", "shot.png"),
    ],
  }),
  assistantMessage({
    id: "m2",
    parts: [
      reasoning("r1", "let me think"),
      text("a1", "reading the file now"),
      tool("t1", "read", completed({ path: "a.ts" }, "one two three four five")),
    ],
  }),
  assistantMessage({ id: "m3", parts: [tool("t2", "bash", running({ command: "make" }))] }),
  userMessage({ id: "m4", parts: [text("u2", "thanks a lot")] }),
]

function measure(
  options: {
    messages?: HostMessage[]
    state?: SessionState
    tagsVisible?: boolean
    placements?: Placement[]
    reclaimable?: number[]
    protectedTokens?: number
  } = {},
): Breakdown {
  const messages = options.messages ?? session()
  const state = options.state ?? ingestedState(messages, wordCounter)
  const view = buildLiveView({ messages, state, protectedTokens: options.protectedTokens ?? 9 })
  const reclaimable = new Set(options.reclaimable ?? [])
  return measurePrompt({
    messages,
    state,
    view,
    tagsVisible: options.tagsVisible ?? true,
    placements: options.placements ?? [],
    fixedTokens: 10,
    reclaimable: view.items.filter((item) => reclaimable.has(item.tag.tag)),
    count: wordCounter.count,
    caches: createRenderCaches(),
  })
}

/** Counts the prompt the renderer actually produces, part by part (what measurePrompt must predict). */
function countRendered(
  messages: HostMessage[],
  state: SessionState,
  tagsVisible: boolean,
  placements: Placement[],
): number {
  const rendered = freshCopy(messages)
  applyEdits(rendered, renderPrompt({ messages, state, tagsVisible, placements }))
  return rendered
    .flatMap((message) => message.parts)
    .reduce((sum, part) => {
      const { content, call } = partText(part)
      return sum + wordCounter.count(content) + wordCounter.count(call)
    }, 0)
}

describe("measurePrompt", () => {
  it("splits the prompt into fixed, conversation, protected and tool tokens", () => {
    // conversation: u1 4 + 1, reasoning 3, a1 4 + 1; tool: file 3 + 1 + 1, media prefix 1, read 2 + 5 + 1;
    // protected: bash 2 + 4, u2 3 + 1.
    expect(measure()).toEqual({
      total: 47,
      fixed: 10,
      history: 0,
      conversation: 13,
      protected: 10,
      tool: 14,
      reclaimable: 0,
      tags: 6,
    })
  })

  it("counts everything in the protected window when it covers the session, and nothing when it is empty", () => {
    expect(measure({ protectedTokens: 1_000 })).toMatchObject({ conversation: 0, tool: 0, protected: 37, total: 47 })
    expect(measure({ protectedTokens: 0 })).toMatchObject({ conversation: 17, tool: 20, protected: 0, total: 47 })
  })

  it("counts prefixes only for finished items and only when tags are visible", () => {
    expect(measure({ tagsVisible: false })).toEqual({
      total: 41,
      fixed: 10,
      history: 0,
      conversation: 11,
      protected: 9,
      tool: 11,
      reclaimable: 0,
      tags: 0,
    })
    const finished = session()
    finished[2] = assistantMessage({ id: "m3", parts: [tool("t2", "bash", completed({ command: "make" }, "ok"))] })
    const state = ingestedState(session(), wordCounter)
    // The stored count stays the running tool's (counted once); only the prefix is added once it finished.
    expect(measure({ messages: finished, state }).tags).toBe(7)
  })

  it("counts the reclaimable share of the named tags: output, call and prefix", () => {
    expect(measure({ reclaimable: [5] }).reclaimable).toBe(8)
    expect(measure({ reclaimable: [5], tagsVisible: false }).reclaimable).toBe(7)
  })

  it.each<[string, string, "reduce" | "reclaim", boolean, Partial<Breakdown>]>([
    [
      "a tool output: its call and the marker [dropped §5§ read output]",
      "t1",
      "reclaim",
      true,
      { tool: 12, tags: 5, total: 45 },
    ],
    [
      "a tool output without visible tags: [dropped read output]",
      "t1",
      "reclaim",
      false,
      { tool: 9, tags: 0, total: 39 },
    ],
    ["a message: the marker [dropped §4§ message]", "a1", "reduce", true, { conversation: 11, tags: 5, total: 45 }],
    [
      "an inlined file: the marker [dropped §2§ file notes.txt]",
      "f1",
      "reduce",
      true,
      { tool: 13, tags: 5, total: 46 },
    ],
    ["a media file: the marker [dropped §3§ file shot.png]", "f2", "reduce", true, { tool: 17, tags: 5, total: 50 }],
  ])("counts a dropped %s", (_name, partId, reason, tagsVisible, expected) => {
    const messages = session()
    const state = ingestedState(messages, wordCounter)
    markDropped(state, partId, reason)
    const breakdown = measure({ messages, state, tagsVisible })
    expect(breakdown).toMatchObject(expected)
    expect(breakdown.total - breakdown.fixed).toBe(countRendered(messages, state, tagsVisible, []))
  })

  it("counts the compacted call of a dropped tool whose input was long", () => {
    const messages = session()
    messages[1] = assistantMessage({
      id: "m2",
      parts: [tool("t1", "read", completed({ path: "a.ts", content: "w".repeat(300) }, "one two"))],
    })
    const state = ingestedState(messages, wordCounter)
    expect(state.parts.get("t1")?.callTokens).toBe(2)
    markDropped(state, "t1", "reclaim")
    // `read {"content":"[300 chars dropped]","path":"a.ts"}` is 4 words, the marker 4.
    const breakdown = measure({ messages, state })
    expect(breakdown.tool).toBe(5 + 1 + 8)
    expect(breakdown.total - breakdown.fixed).toBe(countRendered(messages, state, true, []))
  })

  it("counts the text before a dropped media file, which stays in the prompt", () => {
    const messages = [
      ...session(),
      userMessage({
        id: "m5",
        parts: [text("u3", "look"), syntheticText("note", "Called the Read tool"), mediaFile("f3", "pic.png")],
      }),
    ]
    const state = ingestedState(messages, wordCounter)
    markDropped(state, "f3")
    const breakdown = measure({ messages, state, protectedTokens: 0 })
    expect(breakdown.total - breakdown.fixed).toBe(countRendered(messages, state, true, []))
  })

  it("counts reminders on their tool output and steer messages as protected", () => {
    const placements: Placement[] = [
      { kind: "nudge", anchorId: "t1", level: "firm", text: "drop old output", placedPass: 1 },
      { kind: "steer", anchorId: "m4", level: "ceiling", text: "call ctx_reduce now please", placedPass: 1 },
    ]
    const breakdown = measure({ placements })
    expect(breakdown).toMatchObject({ tool: 14 + 3, protected: 10 + 4, total: 47 + 7 })
    const messages = session()
    expect(breakdown.total - breakdown.fixed).toBe(
      countRendered(messages, ingestedState(messages, wordCounter), true, placements),
    )
  })

  it("counts folded history instead of the folded messages", () => {
    const messages = session()
    const state = ingestedState(messages, wordCounter)
    state.applied = { ...state.applied, history: { foldedThroughSeq: 2, text: "what happened so far", tokens: 4 } }
    expect(measure({ messages, state })).toEqual({
      total: 24,
      fixed: 10,
      history: 4,
      conversation: 0,
      protected: 10,
      tool: 0,
      reclaimable: 0,
      tags: 1,
    })
    expect(measure({ messages, state }).total - 10).toBe(countRendered(messages, state, true, []))
  })

  it("asks the counter only for markers and reminders, never for message content", () => {
    const messages = session()
    const state = ingestedState(messages, wordCounter)
    markDropped(state, "t1", "reclaim")
    const asked: string[] = []
    measurePrompt({
      messages,
      state,
      view: buildLiveView({ messages, state, protectedTokens: 9 }),
      tagsVisible: true,
      placements: [{ kind: "nudge", anchorId: "a1", level: "gentle", text: "hint", placedPass: 1 }],
      fixedTokens: 0,
      reclaimable: [],
      count: (body) => {
        asked.push(body)
        return wordCounter.count(body)
      },
      caches: createRenderCaches(),
    })
    expect(asked).toEqual(["\n\nhint", "[dropped §5§ read output]"])
  })

  it("predicts the tokens of the rendered prompt for any session and applied state", () => {
    fc.assert(
      fc.property(scenarioArbitrary, (scenario) => {
        const { messages, state, tagsVisible, placements, protectedTokens, counter } = scenario
        const breakdown = measurePrompt({
          messages,
          state,
          view: buildLiveView({ messages, state, protectedTokens }),
          tagsVisible,
          placements,
          fixedTokens: 0,
          reclaimable: [],
          count: counter.count,
          caches: createRenderCaches(),
        })
        expect(breakdown.total).toBe(
          breakdown.fixed + breakdown.history + breakdown.conversation + breakdown.protected + breakdown.tool,
        )
        expect(breakdown.total).toBe(countRendered(messages, state, tagsVisible, placements))
        if (!tagsVisible) expect(breakdown.tags).toBe(0)
      }),
      { numRuns: 300 },
    )
  })
})
