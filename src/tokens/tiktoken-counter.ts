import { get_encoding, type Tiktoken } from "tiktoken"
import { PluginError } from "../plugin-error.js"
import type { Encoding, TokenCounter } from "./token-counter.js"

/**
 * Hands out one counter per encoding for the life of the process. Building a tiktoken encoder parses its rank
 * table (hundreds of milliseconds for o200k_base), so the pool builds each encoder once, on first use.
 */
export type TokenCounterPool = {
  counterFor(encoding: Encoding): TokenCounter
  dispose(): void
}

/** Creates an empty pool; encoders are loaded lazily. */
export function createTokenCounterPool(): TokenCounterPool {
  const encoders = new Map<Encoding, Tiktoken>()
  const counters = new Map<Encoding, TokenCounter>()

  const encoderFor = (encoding: Encoding): Tiktoken => {
    const existing = encoders.get(encoding)
    if (existing) return existing
    try {
      const created = get_encoding(encoding)
      encoders.set(encoding, created)
      return created
    } catch (error) {
      throw new PluginError("tokenizer_unavailable", `could not load the ${encoding} tokenizer: ${String(error)}`, {
        encoding,
      })
    }
  }

  return {
    counterFor(encoding) {
      const existing = counters.get(encoding)
      if (existing) return existing
      const counter: TokenCounter = {
        encoding,
        // encode_ordinary treats special-token text such as "<|endoftext|>" as plain text instead of throwing.
        count: (text) => (text.length === 0 ? 0 : encoderFor(encoding).encode_ordinary(text).length),
      }
      counters.set(encoding, counter)
      return counter
    },
    dispose() {
      for (const encoder of encoders.values()) encoder.free()
      encoders.clear()
      counters.clear()
    },
  }
}
