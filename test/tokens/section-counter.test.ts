import { readFileSync } from "node:fs"
import fc from "fast-check"
import { afterAll, describe, expect, it } from "vitest"
import { createSectionCounter, sections } from "../../src/tokens/section-counter.js"
import { createTokenCounterPool } from "../../src/tokens/tiktoken-counter.js"
import { ENCODINGS } from "../../src/tokens/token-counter.js"
import { wordCounter } from "../helpers/host-messages.js"

const pool = createTokenCounterPool()
afterAll(() => pool.dispose())

// Lines of a real agent transcript (code, paths, JSON, shell output), the material histories are made of.
const traceLines = readFileSync(new URL("../../fixtures/traces/raw/claudecode-opus46-spotter-gqc.jsonl", import.meta.url), "utf8")
  .slice(0, 400_000)
  .replace(/\\n/g, "\n")
  .split("\n")
  .filter((line) => line.length < 400)

/** Texts joined the way a history is, with lines that begin with anything, blank lines and odd whitespace between. */
const historyLike = fc
  .array(
    fc.tuple(
      fc.array(fc.constantFrom(...traceLines), { minLength: 1, maxLength: 6 }),
      fc.constantFrom("\n\n", "\n\n\n", "\n", "\n \n", "\n\n/", "\n\n ", "\n\n\t", "\r\n\r\n", "\n\n[c7 §3§]", "\n\n## Pinned", ".\n\n", "*/\n\n"),
    ),
    { minLength: 1, maxLength: 12 },
  )
  .map((blocks) => blocks.map(([lines, separator]) => lines.join("\n") + separator).join(""))

describe("createSectionCounter", () => {
  it.each(ENCODINGS)("counts a history-like text exactly as counting it whole does (%s)", (encoding) => {
    const counter = pool.counterFor(encoding)
    const sectioned = createSectionCounter(counter)
    fc.assert(
      fc.property(historyLike, (text) => {
        expect(sectioned.count(text)).toBe(counter.count(text))
      }),
      { numRuns: 300 },
    )
  })

  it("adds up the same way with the word counter of the tests", () => {
    const sectioned = createSectionCounter(wordCounter)
    fc.assert(fc.property(historyLike, (text) => {
        expect(sectioned.count(text)).toBe(wordCounter.count(text))
      }), { numRuns: 200 })
  })

  it("counts only the sections it did not see in the previous call", () => {
    const asked: string[] = []
    const sectioned = createSectionCounter({ encoding: "words", count: (text) => (asked.push(text), wordCounter.count(text)) })
    expect(sectioned.count("[c1] one two\n\n[c2] three\n\n## Working set\nx")).toBe(9)
    asked.length = 0
    expect(sectioned.count("[c1] one two\n\n[c2] three\n\n[c3] four five\n\n## Working set\ny")).toBe(12)
    expect(asked).toEqual(["[c3] four five\n\n", "## Working set\ny"])
  })
})

describe("sections", () => {
  it("cuts after a blank line only where neither whitespace nor a slash follows", () => {
    expect(sections("a\n\nb\n\n c\n\n/d\n\n\ne")).toEqual(["a\n\n", "b\n\n c\n\n/d\n\n\n", "e"])
    expect(sections("")).toEqual([])
    expect(sections("no blank line\nat all")).toEqual(["no blank line\nat all"])
  })
})
