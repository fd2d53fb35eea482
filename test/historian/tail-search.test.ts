import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { createTailSearch } from "../../src/historian/tail-search.js"

describe("createTailSearch", () => {
  const tail = [
    "$ npx vitest run test/store/migrate.test.ts",
    " FAIL  test/store/migrate.test.ts > refuses a newer database",
    "Error: schema version 7 is newer than this build (6); upgrade magic-context",
    "I'll open src/store/migrate.ts and check `SCHEMA_VERSION` before touching the driver seam.",
    "Résumé: the café’s UTF-8 path /srv/données/日本語.txt was read.",
  ].join("\n")
  const search = createTailSearch(tail, 6)

  it("finds the paths, commands and names the tail repeats", () => {
    expect(search.occurs("src/store/migrate.ts")).toBe(true)
    expect(search.occurs("npx vitest run")).toBe(true)
    expect(search.occurs("SCHEMA_VERSION")).toBe(true)
    expect(search.occurs("/srv/données/日本語.txt")).toBe(true)
  })

  it("says no for identifiers the tail never names, including near misses", () => {
    expect(search.occurs("src/store/migrate.js")).toBe(false)
    expect(search.occurs("src/render/serialize-prompt.ts")).toBe(false)
    expect(search.occurs("SCHEMA_VERSIONS")).toBe(false)
    expect(search.occurs("/srv/donnees/日本語.txt")).toBe(false)
  })

  it("says no for an identifier shorter than the window, even when the tail holds it", () => {
    expect(search.occurs("FAIL")).toBe(false)
    expect(search.occurs("café")).toBe(false)
  })

  it("answers the same when asked twice (the answer is kept)", () => {
    expect(search.occurs("test/store/migrate.test.ts")).toBe(true)
    expect(search.occurs("test/store/migrate.test.ts")).toBe(true)
    expect(search.occurs("test/store/migrate.test.tsx")).toBe(false)
    expect(search.occurs("test/store/migrate.test.tsx")).toBe(false)
  })

  it("works on an empty tail and a tail shorter than the window", () => {
    expect(createTailSearch("", 6).occurs("anything")).toBe(false)
    expect(createTailSearch("abc", 6).occurs("abcdef")).toBe(false)
  })

  it("agrees with a plain substring search, for substrings of the tail and for other text", () => {
    const alphabet = fc.constantFrom("a", "b", "/", ".", "_", "é", "日", "\n", " ")
    fc.assert(
      fc.property(
        fc.array(alphabet, { minLength: 0, maxLength: 400 }).map((chars) => chars.join("")),
        fc.array(fc.tuple(fc.nat(), fc.integer({ min: 1, max: 30 })), { maxLength: 30 }),
        fc.array(fc.array(alphabet, { minLength: 1, maxLength: 20 }).map((chars) => chars.join("")), { maxLength: 30 }),
        fc.integer({ min: 1, max: 8 }),
        (text, slices, others, window) => {
          const candidates = [
            ...slices.map(([at, length]) => text.slice(at % (text.length + 1), (at % (text.length + 1)) + length)),
            ...others,
          ]
          const tailSearch = createTailSearch(text, window)
          for (const candidate of candidates) {
            expect(tailSearch.occurs(candidate)).toBe(candidate.length >= window && text.includes(candidate))
          }
        },
      ),
      { seed: 20_261_204, numRuns: 300 },
    )
  })
})
