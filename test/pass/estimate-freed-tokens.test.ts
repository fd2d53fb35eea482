import { describe, expect, it } from "vitest"
import { estimateFreedTokens } from "../../src/pass/estimate-freed-tokens.js"
import type { SessionState } from "../../src/session/session-state.js"
import { buildLiveView, type LiveView } from "../../src/session/live-view.js"
import { measurePrompt, type Breakdown } from "../../src/render/measure-prompt.js"
import type { HostMessage } from "../../src/transcript/host-message.js"
import { assistantMessage, completed, text, tool, userMessage } from "../helpers/host-messages.js"
import { ingestedState, tokCounter, toks } from "../helpers/pure-session.js"
import { createRenderCaches } from "../../src/render/render-caches.js"
import { passCachesOf } from "../helpers/pass-caches-of.js"

/**
 * A request, a 5,000-token read (settled, never reclaimed by age: no execute pass has set a boundary), and a newest
 * answer with a newer read (protected, and the read the force reserve keeps). Only the word "tok" counts.
 */
const MESSAGES: HostMessage[] = [
  userMessage({ id: "u1", created: 1, parts: [text("p1", toks(20))] }),
  assistantMessage({ id: "a1", created: 2, parts: [tool("r1", "read", completed({ filePath: "a.ts" }, toks(5_000)))] }),
  userMessage({ id: "u2", created: 3, parts: [text("p2", toks(30))] }),
  assistantMessage({ id: "a2", created: 4, parts: [text("p3", toks(40)), tool("r2", "read", completed({ filePath: "b.ts" }, toks(300)))] }),
]

function measureWith(state: SessionState) {
  return (view: LiveView, measured: SessionState): Breakdown =>
    measurePrompt({ messages: MESSAGES, state: measured, view, tagsVisible: true, placements: [], fixedTokens: 0, reclaimable: [], count: tokCounter.count, caches: createRenderCaches() })
}

describe("estimateFreedTokens", () => {
  const state = ingestedState(MESSAGES)
  const measure = measureWith(state)
  const before = measure(buildLiveView({ messages: MESSAGES, state, protectedTokens: 50 }), state)
  const estimate = (reclaim: "age" | "force", ready: { foldThroughSeq: number; text: string; tokens: number } | null = null) =>
    estimateFreedTokens({ messages: MESSAGES, state, before, ready, protectedTokens: 50, landable: [], smart: [], reclaim, measure, caches: passCachesOf(state) })

  it("counts what the pass's own reclaim mode takes: force takes the settled read, age (before any boundary) nothing", () => {
    expect(estimate("force")).toBe(5_000)
    expect(estimate("age")).toBe(0)
  })

  it("counts the history fold as what it replaces less the history message, and reclaim only of what stays live", () => {
    // Folding u1 and a1 (seq 1-2) into a 100-token history frees 5,020 - 100; the read is folded, not reclaimed.
    expect(estimate("force", { foldThroughSeq: 2, text: "history", tokens: 100 })).toBe(4_920)
    // A history larger than what it replaces counts against the rest.
    expect(estimate("age", { foldThroughSeq: 1, text: "history", tokens: 120 })).toBe(-100)
  })

  it("answers the same inputs over the same view items from the last estimate, and other inputs afresh", () => {
    const passView = buildLiveView({ messages: MESSAGES, state, protectedTokens: 50 })
    const caches = passCachesOf(state)
    const remembered = (reclaim: "age" | "force", ready: { foldThroughSeq: number; text: string; tokens: number } | null, landable: number[] = []) =>
      estimateFreedTokens({ messages: MESSAGES, state, before, ready, protectedTokens: 50, landable, smart: [], reclaim, measure, passView, caches })
    const fold = { foldThroughSeq: 2, text: "history", tokens: 100 }
    const asked: number[] = []
    let counted = 0
    const counting = (view: LiveView, measured: SessionState): Breakdown => {
      counted += 1
      return measure(view, measured)
    }
    const withCount = (ready: typeof fold | null) =>
      estimateFreedTokens({ messages: MESSAGES, state, before, ready, protectedTokens: 50, landable: [], smart: [], reclaim: "force", measure: counting, passView, caches })
    asked.push(withCount(fold), withCount(fold))
    expect(asked).toEqual([4_920, 4_920])
    // Asked again with the same inputs over the same items: not worked out again.
    expect(counted).toBe(1)
    // Another history, another mode or other tags: worked out, as without the memory.
    expect(remembered("force", { ...fold, tokens: 200 })).toBe(4_820)
    expect(remembered("age", fold)).toBe(estimate("age", fold))
    const tag = state.tagsByPart.get("r2")?.tag ?? 0
    expect(remembered("force", null, [tag])).toBe(estimateFreedTokens({ messages: MESSAGES, state, before, ready: null, protectedTokens: 50, landable: [tag], smart: [], reclaim: "force", measure, caches: passCachesOf(state) }))
    // Another list of view items (the messages or their records changed): worked out again.
    const other = buildLiveView({ messages: MESSAGES, state, protectedTokens: 50 })
    expect(other.items).not.toBe(passView.items)
    estimateFreedTokens({ messages: MESSAGES, state, before, ready: fold, protectedTokens: 50, landable: [], smart: [], reclaim: "force", measure: counting, passView: other, caches })
    expect(counted).toBe(2)
  })
})
