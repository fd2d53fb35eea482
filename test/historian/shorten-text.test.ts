import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { extractIdentifiers } from "../../src/historian/extract-identifiers.js"
import { ELLIPSIS, shortenKeepingReason, shortenText, shortenWhole } from "../../src/historian/shorten-text.js"

describe("shortenText", () => {
  it("returns a short text unchanged (on one line)", () => {
    expect(shortenText("keep\n  this", 50)).toBe("keep this")
  })

  it("cuts at a word boundary and marks the cut", () => {
    expect(shortenText("one two three four five six", 14)).toBe(`one two three${ELLIPSIS}`)
  })

  it("moves a cut out of an identifier instead of splitting it", () => {
    const text = "The migration in priv/repo/migrations/20260211_add_state.exs needs a SQLite-safe rewrite"
    const short = shortenText(text, 40)
    expect(short).toBe(`The migration in${ELLIPSIS}`)
    const longer = shortenText(text, 70)
    expect(longer).toBe(`The migration in priv/repo/migrations/20260211_add_state.exs needs a${ELLIPSIS}`)
  })

  it("keeps every identifier of the shortened text whole", () => {
    const text = "Use `mix compile --force` after editing lib/spotter/transcripts/annotation.ex and bump 0.8.0 then"
    for (const limit of [10, 20, 30, 40, 50, 60, 70, 80]) {
      const short = shortenText(text, limit)
      for (const identifier of extractIdentifiers(short)) expect(text).toContain(identifier)
    }
  })

  it("never leaves an unmatched backtick", () => {
    const unbalanced = "old_str `case TK_MATCH_CAPTURE: did not match"
    expect(shortenText(unbalanced, 80)).toBe("old_str case TK_MATCH_CAPTURE: did not match")
  })

  it("keeps a consequence introduced by ', so a …' as the reason of a long rejection", () => {
    const rejection =
      "I considered a Redis sorted set for the queue (we already run Redis for the sessions), but rejected it: it " +
      "cannot join the booking transaction, so a crash between the pop and the insert loses the entry."
    const short = shortenKeepingReason(rejection, 200)
    expect(short.length).toBeLessThanOrEqual(200)
    expect(short).toMatch(/^I considered a Redis sorted set/)
    expect(short).toMatch(/so a crash between the pop and the insert loses the entry\.$/)
  })
})

describe("shortenText of a long text", () => {
  it("is shortenWhole, for long texts with any whitespace, punctuation, backticks and quoted paths", () => {
    const piece = fc.constantFrom("word", "src/a.ts", "v1.2.3", " ", "  ", "\n", "\n\n\t", "\u00a0", ",", ";", "(", "-", "`", "'/tmp/x y'", "\"~/a\"", "fooBar", "…", "é")
    fc.assert(
      fc.property(fc.array(piece, { minLength: 20, maxLength: 300 }), fc.constantFrom(1, 5, 20, 60, 140), (pieces, maxChars) => {
        const text = pieces.join("")
        expect(shortenText(text, maxChars)).toBe(shortenWhole(text, maxChars))
      }),
      { numRuns: 2_000 },
    )
  })

  it("reads a long output only as far as its cut", () => {
    const output = `${"alpha beta gamma ".repeat(10)}\n${"   \n".repeat(5_000)}`
    expect(shortenText(output, 30)).toBe(`alpha beta gamma alpha beta${ELLIPSIS}`)
    expect(shortenText(output, 30)).toBe(shortenWhole(output, 30))
  })
})

