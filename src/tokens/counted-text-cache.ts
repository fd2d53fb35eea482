import type { TokenCounter } from "./token-counter.js"

/**
 * `counter` with a memory of the texts it counted: a text counted before is answered from the memory, the same
 * number (counting is a pure function of the text). Bounded by the characters of the texts it keeps; the least
 * recently counted go first. For runs that count the same texts many times over (the Lab replays every transcript
 * once per policy and window); the plugin keeps each part's count in the store instead.
 */
export function withCountedTextCache(counter: TokenCounter, options: { maxChars: number }): TokenCounter {
  const counts = new Map<string, number>()
  let chars = 0
  return {
    encoding: counter.encoding,
    count(text) {
      const known = counts.get(text)
      if (known !== undefined) {
        // Map order is insertion order: moving the text to the end keeps the least recently used first.
        counts.delete(text)
        counts.set(text, known)
        return known
      }
      const count = counter.count(text)
      if (text.length > options.maxChars) return count
      counts.set(text, count)
      chars += text.length
      for (const [oldest] of counts) {
        if (chars <= options.maxChars) break
        counts.delete(oldest)
        chars -= oldest.length
      }
      return count
    },
  }
}

/**
 * What the CLI's replays and the Lab keep of counted texts: the texts of many replays of the same transcripts (at
 * most ~64 MB of UTF-16 for the keys, most of them strings the replays hold anyway).
 */
export const REPLAY_COUNT_CACHE_CHARS = 32_000_000

/** What a counter keeps of the short texts every pass renders again (markers, reminders): ~2 MB of UTF-16 at most. */
const RECURRING_COUNT_CACHE_CHARS = 1_000_000

/** What a session's passes keep of counted texts: each counter's memory of the recurring texts it counted. */
export type TokenCaches = { recurring: WeakMap<TokenCounter, TokenCounter> }

/** Empty token caches, for one session's passes. */
export function createTokenCaches(): TokenCaches {
  return { recurring: new WeakMap() }
}

/**
 * `counter` with a memory of the texts it counted that lasts from pass to pass (`withCountedTextCache`), kept in
 * `caches`: drop markers, reminders and the steer message recur on every pass, and are then counted once per session,
 * not once per pass.
 */
export function withRecurringTextCache(counter: TokenCounter, caches: TokenCaches): TokenCounter {
  let cached = caches.recurring.get(counter)
  if (cached === undefined) {
    cached = withCountedTextCache(counter, { maxChars: RECURRING_COUNT_CACHE_CHARS })
    caches.recurring.set(counter, cached)
  }
  return cached
}
