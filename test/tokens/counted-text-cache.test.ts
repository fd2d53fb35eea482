import { describe, expect, it } from "vitest"
import { createTokenCaches, withCountedTextCache, withRecurringTextCache } from "../../src/tokens/counted-text-cache.js"
import type { TokenCounter } from "../../src/tokens/token-counter.js"

/** A counter that counts words and records every text it was asked to count. */
function recordingCounter(): TokenCounter & { asked: string[] } {
  const asked: string[] = []
  return { encoding: "o200k_base", asked, count: (text) => (asked.push(text), text.split(" ").length) }
}

describe("withCountedTextCache", () => {
  it("answers a text counted before from memory, with the same count", () => {
    const inner = recordingCounter()
    const cached = withCountedTextCache(inner, { maxChars: 1_000 })
    expect(cached.count("a b c")).toBe(3)
    expect(cached.count("a b c")).toBe(3)
    expect(cached.count("d e")).toBe(2)
    expect(inner.asked).toEqual(["a b c", "d e"])
    expect(cached.encoding).toBe("o200k_base")
  })

  it("keeps at most maxChars of texts, forgetting the least recently counted first", () => {
    const inner = recordingCounter()
    const cached = withCountedTextCache(inner, { maxChars: 10 })
    cached.count("aaaa") // 4
    cached.count("bbbb") // 8
    cached.count("aaaa") // a hit: aaaa is now the most recent
    cached.count("ccc") // 11 > 10: bbbb goes
    cached.count("aaaa")
    cached.count("bbbb")
    expect(inner.asked).toEqual(["aaaa", "bbbb", "ccc", "bbbb"])
  })

  it("counts a text longer than the whole memory every time, without keeping it", () => {
    const inner = recordingCounter()
    const cached = withCountedTextCache(inner, { maxChars: 3 })
    cached.count("long text")
    cached.count("long text")
    cached.count("ab")
    cached.count("ab")
    expect(inner.asked).toEqual(["long text", "long text", "ab"])
  })

  it("keeps one memory per counter in the caches for recurring texts (each pass asks again)", () => {
    const inner = recordingCounter()
    const caches = createTokenCaches()
    const first = withRecurringTextCache(inner, caches)
    first.count("[dropped §5§ read output]")
    expect(withRecurringTextCache(inner, caches)).toBe(first)
    withRecurringTextCache(inner, caches).count("[dropped §5§ read output]")
    const other = recordingCounter()
    withRecurringTextCache(other, caches).count("[dropped §5§ read output]")
    expect(inner.asked).toEqual(["[dropped §5§ read output]"])
    expect(other.asked).toEqual(["[dropped §5§ read output]"])
    // Other caches (another session's) keep their own memory.
    expect(withRecurringTextCache(inner, createTokenCaches())).not.toBe(first)
  })
})
