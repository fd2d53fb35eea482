import { billedPrompt, promptCost } from "../pressure/cost-model.js"
import { PRICE_LISTS, type TokenPrices } from "../session/price-lists.js"
import { serializePrompt } from "../session/serialize-prompt.js"
import type { TokenCounter } from "../tokens/token-counter.js"
import type { ReplayTurn } from "../pass/replay-transcript.js"

/** The prices the Lab's costs are in unless a command names another list: OpenAI's, under which its replays decide. */
export const LAB_PRICES: TokenPrices = PRICE_LISTS.openai.prices

/** What a cached prompt token costs, as a share of an uncached one: the OpenAI list's cached read (0.1). */
export const CACHED_TOKEN_PRICE = LAB_PRICES.cachedRead

/** The estimated price of one model call's prompt, in token units. */
export type CallCost = {
  /** The prompt's tokens (`tokens.total` of the pass: fixed prompt included). */
  promptTokens: number
  /** Tokens of the prefix shared with the previous call's prompt (a provider reads them from its cache). */
  cachedTokens: number
  uncachedTokens: number
  /** `pricedTokens` of the two under the prices given (LAB_PRICES: uncached + 0.1 × cached). */
  costTokens: number
}

/**
 * Cached and uncached prompt tokens priced under a list: the cached prefix at its read price, the uncached rest at
 * its write price where the list has a write premium (a provider writes the new suffix to its cache), else at the
 * uncached price (`billedPrompt`, the engine's own arithmetic). Under LAB_PRICES: uncached + 0.1 × cached.
 */
export function pricedTokens(tokens: { cachedTokens: number; uncachedTokens: number }, prices: TokenPrices): number {
  const promptTokens = tokens.cachedTokens + tokens.uncachedTokens
  return promptCost(billedPrompt({ promptTokens, sharedPrefixTokens: tokens.cachedTokens, cacheWarm: true, prices }), prices)
}

/**
 * The cost of one call from its uncached tokens: everything else of the prompt is the prefix shared with the previous
 * call, a cached read. `uncachedTokens` is clamped to [0, promptTokens]; `prices` are LAB_PRICES when absent.
 */
export function callCost(options: { promptTokens: number; uncachedTokens: number; prices?: TokenPrices }): CallCost {
  const { promptTokens } = options
  const uncachedTokens = Math.min(promptTokens, Math.max(0, options.uncachedTokens))
  const cachedTokens = promptTokens - uncachedTokens
  const costTokens = pricedTokens({ cachedTokens, uncachedTokens }, options.prices ?? LAB_PRICES)
  return { promptTokens, cachedTokens, uncachedTokens, costTokens }
}

/** The part of a replayed call the meter reads. */
export type CostedCall = Pick<ReplayTurn, "prompt" | "tokens" | "prefixChanged" | "firstDivergence">

/** Measures the calls of one replay in order. */
export type PromptCostMeter = { measure(call: CostedCall): CallCost }

/**
 * A meter for one replay. The first call is all uncached. A call whose prompt keeps the previous one as a prefix
 * (the pass's `prefixChanged` false) has the previous call's prompt tokens cached and the rest uncached: the
 * difference of the two totals, in the pass's own token measure. A call whose prompt diverges has its serialized
 * prompt (`serializePrompt`, the text the pass compares) from the pass's `firstDivergence` on counted as uncached
 * and the rest cached, the fixed system prompt included; the serialization's role and part markers in that suffix
 * count as the framing a provider adds per message (about 3% more than the pass's measure on the real traces).
 * Prompts are serialized only for diverging calls (a few per 100), so the meter costs little. Each call is priced
 * under `prices` (`pricedTokens`; LAB_PRICES when absent); the tokens measured do not depend on them.
 */
export function createPromptCostMeter(counter: TokenCounter, prices: TokenPrices = LAB_PRICES): PromptCostMeter {
  let previousTokens: number | null = null
  return {
    measure(call) {
      const promptTokens = call.tokens.total
      const uncachedTokens =
        previousTokens === null
          ? promptTokens
          : call.prefixChanged && call.firstDivergence !== null
            ? counter.count(suffixFromByte(serializePrompt(call.prompt), call.firstDivergence))
            : promptTokens - previousTokens
      previousTokens = promptTokens
      return callCost({ promptTokens, uncachedTokens, prices })
    },
  }
}

/** The text from UTF-8 byte `offset` on (the offset of a character boundary; the shared prefix is the same bytes). */
export function suffixFromByte(text: string, offset: number): string {
  let bytes = 0
  let index = 0
  while (index < text.length && bytes < offset) {
    const code = text.charCodeAt(index)
    const next = text.charCodeAt(index + 1)
    const pair = code >= 0xd800 && code <= 0xdbff && next >= 0xdc00 && next <= 0xdfff
    bytes += code < 0x80 ? 1 : code < 0x800 ? 2 : pair ? 4 : 3
    index += pair ? 2 : 1
  }
  return text.slice(index)
}

/** The prompt cost of one or more replays: sums over their calls. */
export type RunCost = { calls: number; promptTokens: number; cachedTokens: number; uncachedTokens: number; costTokens: number }

/** Costs taken together; `costTokens` comes from the integer sums, so the order of calls does not change a bit. */
function totalCost(costs: readonly Omit<RunCost, "calls" | "costTokens">[], calls: number, prices: TokenPrices): RunCost {
  const cachedTokens = costs.reduce((sum, cost) => sum + cost.cachedTokens, 0)
  const uncachedTokens = costs.reduce((sum, cost) => sum + cost.uncachedTokens, 0)
  return {
    calls,
    promptTokens: costs.reduce((sum, cost) => sum + cost.promptTokens, 0),
    cachedTokens,
    uncachedTokens,
    costTokens: pricedTokens({ cachedTokens, uncachedTokens }, prices),
  }
}

/** The cost of one replay's calls, priced under `prices` (LAB_PRICES when absent). */
export function runCost(calls: readonly CallCost[], prices: TokenPrices = LAB_PRICES): RunCost {
  return totalCost(calls, calls.length, prices)
}

/** The cost of several replays taken together, priced under `prices` (LAB_PRICES when absent). */
export function addRunCosts(runs: readonly RunCost[], prices: TokenPrices = LAB_PRICES): RunCost {
  return totalCost(runs, runs.reduce((sum, run) => sum + run.calls, 0), prices)
}
