import { get_encoding, type Tiktoken } from "tiktoken"
import { PluginError } from "../plugin-error.js"
import { withCountedTextCache } from "./counted-text-cache.js"
import type { Encoding, TokenCounter } from "./token-counter.js"

/**
 * Hands out one counter per encoding for the life of the process. Building a tiktoken encoder parses its rank
 * table (hundreds of milliseconds for o200k_base), so the pool builds each encoder once, on first use.
 */
export type TokenCounterPool = {
  counterFor(encoding: Encoding): TokenCounter
  dispose(): void
}

/**
 * Creates an empty pool; encoders are loaded lazily. `cacheChars` gives each counter a memory of that many characters
 * of counted texts (withCountedTextCache), for callers that count the same texts again and again (the Lab).
 */
export function createTokenCounterPool(options: { cacheChars?: number } = {}): TokenCounterPool {
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
      const bare: TokenCounter = {
        encoding,
        count: (text) => (text.length === 0 ? 0 : countBounded(encoderFor(encoding), text)),
      }
      const counter = options.cacheChars ? withCountedTextCache(bare, { maxChars: options.cacheChars }) : bare
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

/** A run without whitespace longer than this is counted in CHUNK_CHARS pieces. */
export const MAX_RUN_CHARS = 1_000
const CHUNK_CHARS = 500
const LONG_RUN = /\S{1000,}/g
const HAS_LONG_RUN = /\S{1000}/

/**
 * Counts `text`, never slower than linear and never throwing: BPE merges inside one pre-token are quadratic in its
 * length (250,000 identical characters took 75 s, and about 1 MB makes tiktoken's WASM fail), so a run without
 * whitespace over MAX_RUN_CHARS is counted in CHUNK_CHARS pieces (a few tokens of boundary error in a run that long),
 * and a text the encoder still refuses counts as characters / 4. `encode_ordinary` treats special-token text such as
 * "<|endoftext|>" as plain text instead of throwing.
 */
function countBounded(encoder: Tiktoken, text: string): number {
  const encode = (piece: string): number => {
    try {
      return encoder.encode_ordinary(piece).length
    } catch {
      return Math.ceil(piece.length / 4)
    }
  }
  if (!HAS_LONG_RUN.test(text)) return encode(text)
  let total = 0
  let from = 0
  for (const match of text.matchAll(LONG_RUN)) {
    if (match.index > from) total += encode(text.slice(from, match.index))
    for (let at = 0; at < match[0].length; at += CHUNK_CHARS) total += encode(match[0].slice(at, at + CHUNK_CHARS))
    from = match.index + match[0].length
  }
  if (from < text.length) total += encode(text.slice(from))
  return total
}
