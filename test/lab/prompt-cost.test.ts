import { describe, expect, it } from "vitest"
import {
  addRunCosts,
  callCost,
  CACHED_TOKEN_PRICE,
  createPromptCostMeter,
  LAB_PRICES,
  pricedTokens,
  runCost,
  suffixFromByte,
  type CostedCall,
} from "../../src/lab/prompt-cost.js"
import { PRICE_LISTS } from "../../src/session/price-lists.js"
import { firstDivergence } from "../../src/session/prompt-divergence.js"
import { serializePrompt } from "../../src/session/serialize-prompt.js"
import type { HostMessage } from "../../src/transcript/host-message.js"
import { assistantMessage, text, userMessage } from "../helpers/host-messages.js"
import { tokCounter, toks } from "../helpers/pure-session.js"

/** The calls a replay would report for these prompts: totals by `tokCounter`, divergence as the pass computes it. */
function calls(prompts: readonly HostMessage[][], fixed = 0): CostedCall[] {
  let previous: string | null = null
  return prompts.map((prompt) => {
    const serialized = serializePrompt(prompt)
    const divergence = previous === null ? null : firstDivergence(previous, serialized)
    previous = serialized
    const total = fixed + tokCounter.count(serialized)
    return {
      prompt,
      tokens: { total, fixed, history: 0, conversation: total - fixed, protected: 0, tool: 0, reclaimable: 0, tags: 0 },
      prefixChanged: divergence !== null,
      firstDivergence: divergence,
    }
  })
}

const user = (id: string, size: number): HostMessage => userMessage({ id, parts: [text(`${id}-p`, toks(size))] })
const reply = (id: string, size: number): HostMessage => assistantMessage({ id, parts: [text(`${id}-p`, toks(size))] })

describe("callCost", () => {
  it.each([
    [1000, 1000, 0, 1000],
    [1000, 100, 900, 190],
    [1000, 0, 1000, 100],
    [1000, 1500, 0, 1000],
    [1000, -5, 1000, 100],
  ])("prices %i prompt tokens with %i uncached: %i cached, cost %d", (promptTokens, uncachedTokens, cachedTokens, costTokens) => {
    const cost = callCost({ promptTokens, uncachedTokens })
    expect(cost.cachedTokens).toBe(cachedTokens)
    expect(cost.uncachedTokens + cost.cachedTokens).toBe(promptTokens)
    expect(cost.costTokens).toBeCloseTo(costTokens, 10)
  })
})

describe("pricedTokens", () => {
  it.each([
    // 900 cached, 100 uncached: the uncached suffix at the write price, the cached prefix at the read price.
    ["anthropic-5m", 900, 100, 100 * 1.25 + 900 * 0.1],
    ["anthropic-1h", 900, 100, 100 * 2 + 900 * 0.1],
    ["openai", 900, 100, 100 + 900 * 0.1],
    ["google", 900, 100, 100 + 900 * 0.1],
    ["anthropic-5m", 0, 1000, 1250],
    ["anthropic-1h", 1000, 0, 100],
  ] as const)("prices %s: %i cached and %i uncached cost %d", (list, cachedTokens, uncachedTokens, expected) => {
    expect(pricedTokens({ cachedTokens, uncachedTokens }, PRICE_LISTS[list].prices)).toBeCloseTo(expected, 10)
  })

  it("prices under the OpenAI list by default, bit for bit uncached + 0.1 × cached", () => {
    expect(LAB_PRICES).toEqual(PRICE_LISTS.openai.prices)
    for (const [cachedTokens, uncachedTokens] of [[107, 50], [47, 60], [123_457, 9_871], [0, 3]] as const) {
      expect(callCost({ promptTokens: cachedTokens + uncachedTokens, uncachedTokens }).costTokens).toBe(uncachedTokens + CACHED_TOKEN_PRICE * cachedTokens)
    }
  })

  it("never prices a suffix below its uncached price when a list's write price is lower", () => {
    const cheapWrite = { uncached: 1, cachedRead: 0.1, cacheWrite: 0.5 }
    expect(pricedTokens({ cachedTokens: 0, uncachedTokens: 100 }, cheapWrite)).toBe(100)
  })
})

describe("createPromptCostMeter", () => {
  it("prices the first call in full, a kept prefix at 0.1 and a diverged prompt from its first difference on", () => {
    const first = [user("u1", 100)]
    const second = [...first, reply("a1", 20), user("u2", 30)]
    // The history at the top changes (a fold): only its first message, shared up to a byte, is cached.
    const third = [userMessage({ id: "u1", parts: [text("u1-p", `${toks(40)} folded`)] }), reply("a1", 20), user("u2", 30), reply("a2", 10)]
    const meter = createPromptCostMeter(tokCounter)
    const costs = calls([first, second, third], 7).map((call) => meter.measure(call))
    expect(costs).toEqual([
      { promptTokens: 107, cachedTokens: 0, uncachedTokens: 107, costTokens: 107 },
      // 107 tokens shared with the first prompt (the fixed 7 among them): 50 new + 0.1 × 107.
      { promptTokens: 157, cachedTokens: 107, uncachedTokens: 50, costTokens: 50 + 107 * CACHED_TOKEN_PRICE },
      // The first 40 toks of u1 and the fixed prompt are shared; 60 more after it are new.
      { promptTokens: 107, cachedTokens: 47, uncachedTokens: 60, costTokens: 60 + 47 * CACHED_TOKEN_PRICE },
    ])
    expect(costs[1]?.costTokens).toBeCloseTo(60.7, 10)
  })

  it("costs a run that only appends less than one that repeats the same tokens uncached", () => {
    const prompts = [[user("u1", 50)], [user("u1", 50), reply("a1", 50)], [user("u1", 50), reply("a1", 50), user("u2", 50)]]
    const meter = createPromptCostMeter(tokCounter)
    const cost = runCost(calls(prompts).map((call) => meter.measure(call)))
    expect(cost).toEqual({ calls: 3, promptTokens: 300, cachedTokens: 150, uncachedTokens: 150, costTokens: 165 })
  })
})

describe("createPromptCostMeter under a price list", () => {
  it("prices the first call as a cache write and each later call's new suffix at the list's write price", () => {
    const prompts = [[user("u1", 50)], [user("u1", 50), reply("a1", 50)], [user("u1", 50), reply("a1", 50), user("u2", 50)]]
    const prices = PRICE_LISTS["anthropic-1h"].prices
    const meter = createPromptCostMeter(tokCounter, prices)
    const costs = calls(prompts).map((call) => meter.measure(call))
    expect(costs.map((cost) => cost.costTokens)).toEqual([50 * 2, 50 * 2 + 50 * 0.1, 50 * 2 + 100 * 0.1])
    expect(runCost(costs, prices)).toEqual({ calls: 3, promptTokens: 300, cachedTokens: 150, uncachedTokens: 150, costTokens: 150 * 2 + 150 * 0.1 })
  })

  it("measures the same tokens under every list and costs them more the higher the write premium", () => {
    const prompts = [[user("u1", 80)], [user("u1", 80), reply("a1", 20)]]
    const runs = (["openai", "anthropic-5m", "anthropic-1h"] as const).map((list) => {
      const meter = createPromptCostMeter(tokCounter, PRICE_LISTS[list].prices)
      return runCost(calls(prompts).map((call) => meter.measure(call)), PRICE_LISTS[list].prices)
    })
    expect(new Set(runs.map((run) => `${run.cachedTokens}/${run.uncachedTokens}`)).size).toBe(1)
    const [openai, fiveMinutes, oneHour] = runs.map((run) => run.costTokens)
    expect(openai).toBeLessThan(fiveMinutes ?? 0)
    expect(fiveMinutes).toBeLessThan(oneHour ?? 0)
  })
})

describe("runCost and addRunCosts", () => {
  it("sums calls and runs and prices the integer sums", () => {
    const one = runCost([callCost({ promptTokens: 100, uncachedTokens: 100 }), callCost({ promptTokens: 150, uncachedTokens: 50 })])
    const two = runCost([callCost({ promptTokens: 80, uncachedTokens: 10 })])
    expect(one).toEqual({ calls: 2, promptTokens: 250, cachedTokens: 100, uncachedTokens: 150, costTokens: 160 })
    expect(addRunCosts([one, two])).toEqual({ calls: 3, promptTokens: 330, cachedTokens: 170, uncachedTokens: 160, costTokens: 177 })
    expect(addRunCosts([])).toEqual({ calls: 0, promptTokens: 0, cachedTokens: 0, uncachedTokens: 0, costTokens: 0 })
  })

  it("reprices the sums under another list", () => {
    const one = runCost([callCost({ promptTokens: 100, uncachedTokens: 100 }), callCost({ promptTokens: 150, uncachedTokens: 50 })])
    expect(addRunCosts([one], PRICE_LISTS["anthropic-5m"].prices).costTokens).toBeCloseTo(150 * 1.25 + 100 * 0.1, 10)
  })
})

describe("suffixFromByte", () => {
  it.each([
    ["abc", 0, "abc"],
    ["abc", 2, "c"],
    ["§§x", 2, "§x"],
    ["a😀b", 5, "b"],
    ["abc", 9, ""],
  ])("%j from byte %i is %j", (textValue, offset, expected) => {
    expect(suffixFromByte(textValue, offset)).toBe(expected)
  })
})
