import type { Config } from "../config/schema.js"
import { encodingForModel } from "../tokens/encoding-for-model.js"
import type { TokenCounterPool } from "../tokens/tiktoken-counter.js"
import type { TokenCounter } from "../tokens/token-counter.js"

/**
 * The Lab's token counter: the configured encoding, else the default family's. One counter for every transcript, so
 * token figures compare across them.
 */
export function labCounter(pool: TokenCounterPool, config: Config): TokenCounter {
  return pool.counterFor(encodingForModel({ settings: config.tokenizer }))
}
