import { PRICE_LISTS } from "../session/price-lists.js"
import { serializePrompt } from "../session/serialize-prompt.js"
import type { TokenCounter } from "../tokens/token-counter.js"
import type { ReplayTurn } from "../pass/replay-transcript.js"

/** What a cached prompt token costs, as a share of an uncached one: the OpenAI list's cached read (0.1). */
export const CACHED_TOKEN_PRICE = PRICE_LISTS.openai.prices.cachedRead

/** The estimated price of one model call's prompt, in token units. */
export type CallCost = {
  /** The prompt's tokens (`tokens.total` of the pass: fixed prompt included). */
  promptTokens: number
  /** Tokens of the prefix shared with the previous call's prompt (a provider reads them from its cache). */
  cachedTokens: number
  uncachedTokens: number
  /** uncached + CACHED_TOKEN_PRICE × cached. */
  costTokens: number
}

/**
 * The cost of one call from its uncached tokens: everything else of the prompt is the prefix shared with the previous
 * call, billed at CACHED_TOKEN_PRICE. `uncachedTokens` is clamped to [0, promptTokens].
 */
export function callCost(options: { promptTokens: number; uncachedTokens: number }): CallCost {
  const { promptTokens } = options
  const uncachedTokens = Math.min(promptTokens, Math.max(0, options.uncachedTokens))
  const cachedTokens = promptTokens - uncachedTokens
  return { promptTokens, cachedTokens, uncachedTokens, costTokens: uncachedTokens + CACHED_TOKEN_PRICE * cachedTokens }
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
 * Prompts are serialized only for diverging calls (a few per 100), so the meter costs little.
 */
export function createPromptCostMeter(counter: TokenCounter): PromptCostMeter {
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
      return callCost({ promptTokens, uncachedTokens })
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
function totalCost(costs: readonly Omit<RunCost, "calls" | "costTokens">[], calls: number): RunCost {
  const cachedTokens = costs.reduce((sum, cost) => sum + cost.cachedTokens, 0)
  const uncachedTokens = costs.reduce((sum, cost) => sum + cost.uncachedTokens, 0)
  return {
    calls,
    promptTokens: costs.reduce((sum, cost) => sum + cost.promptTokens, 0),
    cachedTokens,
    uncachedTokens,
    costTokens: uncachedTokens + CACHED_TOKEN_PRICE * cachedTokens,
  }
}

/** The cost of one replay's calls. */
export function runCost(calls: readonly CallCost[]): RunCost {
  return totalCost(calls, calls.length)
}

/** The cost of several replays taken together. */
export function addRunCosts(runs: readonly RunCost[]): RunCost {
  return totalCost(runs, runs.reduce((sum, run) => sum + run.calls, 0))
}
