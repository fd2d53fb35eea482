import { describe, expect, it } from "vitest"
import type { Tier } from "../../src/historian/fidelity-types.js"
import { createHistoryCaches } from "../../src/render/history-caches.js"
import { prepareHistory, type AppliedSelections, type HistoryCompartment, type HistoryPin } from "../../src/render/prepare-history.js"
import { buildLiveView } from "../../src/session/live-view.js"
import { createMessageMemo } from "../../src/session/message-memo.js"
import type { HostMessage } from "../../src/transcript/host-message.js"
import { text, userMessage, wordCounter } from "../helpers/host-messages.js"
import { ingestedState } from "../helpers/pure-session.js"

const MESSAGES: HostMessage[] = [userMessage({ id: "u1", created: 1, parts: [text("t1", "Keep going with src/render/history-caches.ts please")] })]
const STATE = ingestedState(MESSAGES)
const VIEW = buildLiveView({ messages: MESSAGES, state: STATE, protectedTokens: 50 })
const NONE: AppliedSelections = { current: new Map(), yielded: new Set() }

/** Episode `seq`'s tier texts: FULL is long, each lower tier shorter; every read of a text is logged in `reads`. */
function episode(seq: number, reads: string[], status: "closed" | "folded" = "closed"): HistoryCompartment {
  const texts: Partial<Record<Tier, string>> = {
    full: `[c${seq}] full ${"word ".repeat(40)}`,
    compact: `[c${seq}] compact ${"word ".repeat(8)}`,
    anchor: `[c${seq}] anchor`,
  }
  const tiers = Object.keys(texts) as Tier[]
  return {
    id: `s#c${seq}`,
    seq,
    firstTag: seq * 10,
    lastTag: seq * 10 + 9,
    lastMessageSeq: seq * 2,
    status,
    basis: {
      tiers,
      tokens: Object.fromEntries(tiers.map((tier) => [tier, wordCounter.count(texts[tier] ?? "")])),
      floor: "anchor",
      identifiers: [],
      text: (tier) => {
        reads.push(`c${seq}:${tier}`)
        return texts[tier]
      },
    },
  }
}

function prepare(
  compartments: readonly HistoryCompartment[],
  options: { budgetTokens: number; pins?: HistoryPin[]; selections?: AppliedSelections; caches?: ReturnType<typeof createHistoryCaches>; recall?: boolean },
) {
  return prepareHistory({
    compartments,
    selections: options.selections ?? NONE,
    pins: options.pins ?? [],
    view: VIEW,
    messages: MESSAGES,
    memo: createMessageMemo(),
    budgets: { budgetTokens: options.budgetTokens, pinBudgetTokens: 0 },
    policy: "default",
    expanded: new Set(),
    guide: null,
    recall: options.recall ?? false,
    caches: options.caches ?? createHistoryCaches(wordCounter),
  })
}

describe("prepareHistory", () => {
  it("reads the text of the tier it renders only, and composes it into the history", () => {
    const reads: string[] = []
    const prepared = prepare([episode(1, reads), episode(2, reads)], { budgetTokens: 60 })
    expect(prepared?.report.tiers).toEqual({ c1: "compact", c2: "compact" })
    expect(reads).toEqual(["c1:compact", "c2:compact"])
    expect(prepared?.ready.text).toContain("[c2] compact")
    expect(prepared?.ready.foldThroughSeq).toBe(4)
    expect(prepared?.ready.tokens).toBe(wordCounter.count(prepared?.ready.text ?? ""))
  })

  it("gives the same history with fresh caches as with caches a preparation used", () => {
    const caches = createHistoryCaches(wordCounter)
    const compartments = [episode(1, []), episode(2, []), episode(3, [])]
    prepare(compartments.slice(0, 2), { budgetTokens: 60, caches })
    expect(prepare(compartments, { budgetTokens: 60, caches })).toEqual(prepare(compartments, { budgetTokens: 60 }))
  })

  it("changes nothing when every compartment is folded and no applied tier switches", () => {
    const folded = [episode(1, [], "folded"), episode(2, [], "folded")]
    const applied: AppliedSelections = { current: new Map([["s#c1", "compact"], ["s#c2", "full"]]), yielded: new Set() }
    expect(prepare(folded, { budgetTokens: 60, selections: applied })).toBeNull()
    expect(prepare(folded, { budgetTokens: 1_000, selections: applied })?.report.switches).toBe(1)
  })

  it("recalls the source line of a condensed episode the newest message names, in what the tiers left of the budget", () => {
    const reads: string[] = []
    const named = episode(1, reads)
    const full = `[c1] full\n§12§ tool read\ncaches: src/render/history-caches.ts\n${"word ".repeat(40)}`
    const compartment = { ...named, basis: { ...named.basis, text: (tier: Tier) => (tier === "full" ? full : named.basis.text(tier)) } }
    const recalled = prepare([compartment, episode(2, reads)], { budgetTokens: 60, recall: true })
    expect(recalled?.report.tiers).toEqual({ c1: "compact", c2: "compact" })
    expect(recalled?.ready.text).toContain("## Recalled by reference\n")
    expect(recalled?.ready.text).toContain("- c1 §12§: caches: src/render/history-caches.ts")
    expect(recalled?.report.recalledLines).toBe(1)
    expect(recalled?.ready.tokens).toBe(wordCounter.count(recalled?.ready.text ?? ""))
    // Recall takes at most a tenth of the budget, and only what the tiers left; none without recall.
    expect(prepare([compartment, episode(2, reads)], { budgetTokens: 22, recall: true })?.ready.text).not.toContain("## Recalled")
    expect(prepare([compartment, episode(2, reads)], { budgetTokens: 60 })?.report.recalledLines).toBe(0)
  })

  it("reads an episode's tiers for its condensed pins once while its pins are the same", () => {
    const reads: string[] = []
    const caches = createHistoryCaches(wordCounter)
    const compartments = [episode(1, reads), episode(2, reads)]
    const pins: HistoryPin[] = [{ text: "never push to main", tags: [12], compartmentId: "s#c1" }]
    prepare(compartments, { budgetTokens: 60, pins, caches })
    expect(reads.filter((read) => read.startsWith("c1:"))).toEqual(["c1:full", "c1:compact", "c1:anchor", "c1:compact"])
    reads.length = 0
    prepare(compartments, { budgetTokens: 60, pins, caches })
    expect(reads).toEqual(["c1:compact", "c2:compact"])
    reads.length = 0
    prepare(compartments, { budgetTokens: 60, pins: [{ ...pins[0] as HistoryPin, text: "never force-push" }], caches })
    expect(reads.filter((read) => read.startsWith("c1:"))).toEqual(["c1:full", "c1:compact", "c1:anchor", "c1:compact"])
  })
})
