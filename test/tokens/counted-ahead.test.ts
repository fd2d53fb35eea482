import { describe, expect, it } from "vitest"
import { withCountsAhead } from "../../src/tokens/counted-ahead.js"
import type { TokenCounter } from "../../src/tokens/token-counter.js"

/** A word counter that lists every text it was asked to count. */
function recordingCounter(): TokenCounter & { counted: string[] } {
  const counted: string[] = []
  return {
    encoding: "words",
    counted,
    count(text) {
      counted.push(text)
      return text.split(/\s+/).filter(Boolean).length
    },
  }
}

describe("withCountsAhead", () => {
  it("answers the next count of a text counted ahead from memory, with the same number, once", () => {
    const inner = recordingCounter()
    const counter = withCountsAhead(inner, { maxChars: 1_000 })
    counter.countAhead("the build failed in three places")
    expect(inner.counted).toEqual(["the build failed in three places"])
    expect(counter.count("the build failed in three places")).toBe(6)
    expect(inner.counted).toHaveLength(1)
    expect(counter.answeredAhead).toBe(1)
    // Answered once: the same text asked again is counted again.
    expect(counter.count("the build failed in three places")).toBe(6)
    expect(inner.counted).toHaveLength(2)
    expect(counter.answeredAhead).toBe(1)
  })

  it("counts a text nobody counted ahead as the counter does", () => {
    const inner = recordingCounter()
    const counter = withCountsAhead(inner, { maxChars: 1_000 })
    counter.countAhead("one text")
    expect(counter.count("another text entirely")).toBe(3)
    expect(counter.answeredAhead).toBe(0)
  })

  it("skips empty texts and texts counted ahead already", () => {
    const inner = recordingCounter()
    const counter = withCountsAhead(inner, { maxChars: 1_000 })
    counter.countAhead("")
    counter.countAhead("npm test")
    counter.countAhead("npm test")
    expect(inner.counted).toEqual(["npm test"])
  })

  it("forgets the oldest counts made ahead past maxChars", () => {
    const inner = recordingCounter()
    const counter = withCountsAhead(inner, { maxChars: 20 })
    counter.countAhead("first ten.")
    counter.countAhead("second ten")
    counter.countAhead("third text")
    counter.countAhead("a text longer than the whole memory")
    expect(counter.count("first ten.")).toBe(2)
    expect(counter.count("second ten")).toBe(2)
    expect(counter.count("third text")).toBe(2)
    expect(counter.answeredAhead).toBe(2)
    expect(inner.counted.filter((text) => text === "first ten.")).toHaveLength(2)
  })
})
