import { describe, expect, it } from "vitest"
import { createReplayPricer, pricedTurnJson, replayPriceLines, type MeteredTurn } from "../../src/cli/replay-cost.js"
import { callCost } from "../../src/lab/prompt-cost.js"
import { resolvePrices } from "../../src/session/price-lists.js"

/** A replayed call: its prompt of `total` tokens, `cached` of them the prefix shared with the call before. */
function metered(turn: number, pass: "execute" | "replay", total: number, cached: number, usageBefore = 50): MeteredTurn {
  const tokens = { total, fixed: 0, history: 0, conversation: 0, protected: total, tool: 0, reclaimable: 0, tags: 0 }
  return { row: { turn, pass, usageBefore, tokens }, cost: callCost({ promptTokens: total, uncachedTokens: total - cached }) }
}

describe("createReplayPricer", () => {
  const anthropic = resolvePrices({ family: "anthropic", override: null })
  const unreduced = [metered(1, "replay", 1_000, 0), metered(3, "replay", 2_000, 1_000), metered(5, "replay", 3_000, 2_000), metered(7, "replay", 4_000, 3_000)]
  // Turn 5 executes at 30% of a 10,000-token window: it sent 1,200 tokens, 200 of them still the cached prefix.
  const reduced = [metered(1, "replay", 1_000, 0), metered(3, "replay", 2_000, 1_000), metered(5, "execute", 1_200, 200, 30), metered(7, "replay", 2_200, 1_200)]

  it("prices every call and the unreduced call of the same turn under the list, with running totals", () => {
    const pricer = createReplayPricer({ unreduced, prices: anthropic, usableTokens: 10_000 })
    const turns = reduced.map((turn) => pricer.price(turn))
    expect(turns.map((turn) => turn.cost)).toEqual([1_250, 1_350, 1_270, 1_370])
    expect(turns.map((turn) => turn.hostAloneCost)).toEqual([1_250, 1_350, 1_450, 1_550])
    expect(turns.at(-1)).toMatchObject({ sessionCost: 5_240, hostAloneSessionCost: 5_600 })
    const pricing = pricer.finish()
    expect(pricing).toMatchObject({ withPlugin: 5_240, hostAlone: 5_600 })
    // The execute freed 3,000 - 1,200 = 1,800 tokens: 180 a call at the read price, on its own call and the one after.
    expect(pricing.lastExecute).toEqual({ turn: 5, callsSince: 1, cost: 1_270, savesPerCall: 180, savedSoFar: 360 })
    expect(replayPriceLines(pricing)).toEqual([
      "Price list anthropic-5m (the provider's list): cached read 0.1×, cache write 1.25× the uncached input price.",
      "Under it, estimated prompt cost 5,240 vs 5,600 without magic-context (−6%).",
      "The last execute pass (turn 5): its request cost 1,270; it saves 180 a call, 360 so far (2 calls).",
    ])
    expect(pricedTurnJson("anthropic-5m", turns[0] as (typeof turns)[number])).toEqual({
      priceList: "anthropic-5m",
      cost: 1_250,
      sessionCost: 1_250,
      hostAloneCost: 1_250,
      hostAloneSessionCost: 1_250,
    })
  })

  it("has no host alone when a turn has no unreduced call, and no execute line without an execute pass", () => {
    const pricer = createReplayPricer({ unreduced: unreduced.slice(0, 2), prices: anthropic, usableTokens: 10_000 })
    for (const turn of reduced.slice(0, 3).map((turn, index) => (index === 2 ? { ...turn, row: { ...turn.row, pass: "replay" as const } } : turn))) pricer.price(turn)
    const pricing = pricer.finish()
    expect(pricing.hostAlone).toBeNull()
    expect(pricing.lastExecute).toBeNull()
    expect(replayPriceLines(pricing)).toEqual([
      "Price list anthropic-5m (the provider's list): cached read 0.1×, cache write 1.25× the uncached input price.",
      "Under it, estimated prompt cost 3,870.",
    ])
  })
})
