import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { contentHash, contentHashOfParts } from "../../src/transcript/content-hash.js"

describe("contentHash", () => {
  // Reference values of cyrb53 (seed 0) published with the algorithm.
  it.each([
    ["a", 7929297801672961],
    ["b", 8684336938537663],
    ["revenge", 4051478007546757],
    ["revenue", 8309097637345594],
  ])("matches the cyrb53 reference for %j", (input, expected) => {
    expect(Number.parseInt(contentHash(input), 16)).toBe(expected)
  })

  it("is always 14 lowercase hex digits", () => {
    fc.assert(
      fc.property(fc.string({ unit: "binary" }), (input) => {
        expect(contentHash(input)).toMatch(/^[0-9a-f]{14}$/)
      }),
      { numRuns: 200 },
    )
  })

  it("is a pure function of the text", () => {
    fc.assert(
      fc.property(fc.string(), (input) => {
        expect(contentHash(input)).toBe(contentHash(`${input}`))
      }),
      { numRuns: 100 },
    )
  })

  it("tells apart texts that differ in one character or in order", () => {
    expect(contentHash('{"a":1}')).not.toBe(contentHash('{"a":2}'))
    expect(contentHash("ab")).not.toBe(contentHash("ba"))
    expect(contentHash("")).not.toBe(contentHash(" "))
  })

  it("hashes texts in parts as it hashes them joined, wherever they are cut", () => {
    fc.assert(
      fc.property(fc.array(fc.string({ unit: "binary" }), { maxLength: 8 }), (parts) => {
        expect(contentHashOfParts(parts)).toBe(contentHash(parts.join("")))
      }),
      { numRuns: 200 },
    )
  })
})
