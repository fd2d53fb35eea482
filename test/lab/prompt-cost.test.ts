import { describe, expect, it } from "vitest"
import {
  addRunCosts,
  callCost,
  CACHED_TOKEN_PRICE,
  createPromptCostMeter,
  runCost,
  suffixFromByte,
  type CostedCall,
} from "../../src/lab/prompt-cost.js"
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

describe("runCost and addRunCosts", () => {
  it("sums calls and runs and prices the integer sums", () => {
    const one = runCost([callCost({ promptTokens: 100, uncachedTokens: 100 }), callCost({ promptTokens: 150, uncachedTokens: 50 })])
    const two = runCost([callCost({ promptTokens: 80, uncachedTokens: 10 })])
    expect(one).toEqual({ calls: 2, promptTokens: 250, cachedTokens: 100, uncachedTokens: 150, costTokens: 160 })
    expect(addRunCosts([one, two])).toEqual({ calls: 3, promptTokens: 330, cachedTokens: 170, uncachedTokens: 160, costTokens: 177 })
    expect(addRunCosts([])).toEqual({ calls: 0, promptTokens: 0, cachedTokens: 0, uncachedTokens: 0, costTokens: 0 })
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
