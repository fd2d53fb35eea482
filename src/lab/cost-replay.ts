import type { Config } from "../config/schema.js"
import { compilePinPatterns } from "../historian/pin-patterns.js"
import { replayTranscript } from "../pass/replay-transcript.js"
import { fixedWindow } from "../pressure/model-window.js"
import type { SelectionPolicy } from "../render/select-tiers.js"
import type { PriceListName } from "../session/price-lists.js"
import { MEMORY_DATABASE, openDatabase } from "../store/open-database.js"
import type { TokenCounter } from "../tokens/token-counter.js"
import type { Transcript } from "../transcript/turn-model.js"
import { LAB_CLOCK } from "./evaluate-probes.js"
import { callCost, createPromptCostMeter, runCost, type CallCost, type RunCost } from "./prompt-cost.js"
import { runMetrics, type RunMetrics, type TurnMeasure } from "./run-metrics.js"

/**
 * One replay as the cost comparison reads it: its calls' cached and uncached tokens, what the engine did, the tokens
 * its prompts spent on `§N§` tags (summed over the calls, as `cost.promptTokens` is) and the tokens each request
 * carried for the plugin's guidance and tools (`requestTokens`, 0 for the host alone).
 */
export type CostRun = { cost: RunCost; metrics: RunMetrics; tagTokens: number; requestTokens: number }

/**
 * Replays a transcript into a fresh in-memory store with the Lab's fixed clock, the engine deciding under `priceList`
 * (its prices and cache lifetime; OpenAI's list when absent), and measures each call's cached prefix with the Lab's
 * meter. With `tagsVisible` false and no smart drops it is the host alone: no tags, no reminders, nothing queued.
 * `requestTokens` (the plugin's guidance and tool definitions, `pluginRequestTokens`) are added to every call's
 * prompt: uncached on the first call, cached after it (they come before every message, so no break reaches them).
 */
export async function costReplay(options: {
  transcript: Transcript
  counter: TokenCounter
  config: Config
  window: number
  policy: SelectionPolicy
  priceList?: PriceListName
  tagsVisible: boolean
  requestTokens?: number
}): Promise<CostRun> {
  const { transcript, counter, config, priceList } = options
  const requestTokens = options.requestTokens ?? 0
  const meter = createPromptCostMeter(counter)
  const costs: CallCost[] = []
  const measures: TurnMeasure[] = []
  const db = await openDatabase(MEMORY_DATABASE)
  try {
    replayTranscript({
      transcript,
      db,
      counter,
      clock: LAB_CLOCK,
      window: fixedWindow({ usableTokens: options.window, config, ...(priceList === undefined ? {} : { priceList }) }),
      smartDrops: options.tagsVisible && config.smart_drops,
      policy: options.policy,
      pinPatterns: compilePinPatterns(config.pins).matchers,
      tagsVisible: options.tagsVisible,
      onTurn: (turn) => {
        const { pass, tokens, prefixChanged, history } = turn
        measures.push({ pass, tokens, prefixChanged, history })
        const cost = meter.measure(turn)
        const uncachedTokens = cost.uncachedTokens + (costs.length === 0 ? requestTokens : 0)
        costs.push(requestTokens === 0 ? cost : callCost({ promptTokens: cost.promptTokens + requestTokens, uncachedTokens }))
      },
    })
    const tagTokens = measures.reduce((sum, turn) => sum + turn.tokens.tags, 0)
    return { cost: runCost(costs), metrics: runMetrics(measures), tagTokens, requestTokens }
  } finally {
    db.close()
  }
}
