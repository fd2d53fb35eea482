import type { TokenCounter } from "./token-counter.js"

/**
 * A counter that can be handed texts before a pass asks for them: the host tells the plugin about a finished part
 * (an event) before the next transform call reads it, and counting its text then keeps the tokenizer off the
 * request path. A count made ahead answers the next `count` of the same text once, then is forgotten; a text never
 * counted ahead (an event that did not come) is counted as ever. Counting is a pure function of the text, so the
 * answer is the same number either way.
 */
export type CountingAhead = TokenCounter & {
  /** Counts `text` now, for a later `count` of the same text. */
  countAhead(text: string): void
  /** How many `count` calls a count made ahead answered. */
  readonly answeredAhead: number
}

/**
 * `counter` with counts made ahead, kept up to `maxChars` characters of texts: past that the oldest are forgotten
 * (a text the pass never asks for, such as a part of a session no pass runs for, does not stay).
 */
export function withCountsAhead(counter: TokenCounter, options: { maxChars: number }): CountingAhead {
  const ahead = new Map<string, number>()
  let chars = 0
  let answered = 0
  return {
    encoding: counter.encoding,
    count(text) {
      const known = ahead.get(text)
      if (known === undefined) return counter.count(text)
      ahead.delete(text)
      chars -= text.length
      answered += 1
      return known
    },
    countAhead(text) {
      if (text.length === 0 || text.length > options.maxChars || ahead.has(text)) return
      ahead.set(text, counter.count(text))
      chars += text.length
      // Map order is insertion order: the first entries are the oldest.
      for (const [oldest] of ahead) {
        if (chars <= options.maxChars) break
        ahead.delete(oldest)
        chars -= oldest.length
      }
    },
    get answeredAhead() {
      return answered
    },
  }
}

/** How many counts `counter` answered from counts made ahead, or null for a counter that takes none. */
export function answeredAheadOf(counter: TokenCounter): number | null {
  return "answeredAhead" in counter && typeof counter.answeredAhead === "number" ? counter.answeredAhead : null
}

/** What a host counts ahead at most: ~8 MB of UTF-16, far more than one step's finished parts. */
export const COUNT_AHEAD_CHARS = 4_000_000
