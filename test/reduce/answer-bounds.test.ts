import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { clipText, QUOTED_ARGUMENT_CHARS, quoteArgument } from "../../src/reduce/answer-bounds.js"

describe("quoteArgument", () => {
  it.each<[string, string]>([
    ["3-5,8", '"3-5,8"'],
    ["", '""'],
    ['say "hi"', '"say \\"hi\\""'],
    ["a\nb", '"a\\nb"'],
    ["٣", '"٣"'],
  ])("quotes a short argument whole, as JSON: %j", (text, quoted) => {
    expect(quoteArgument(text)).toBe(quoted)
  })

  it("quotes only the head of a long argument and says how long it is", () => {
    const text = "1,".repeat(5_000_000)
    expect(quoteArgument(text)).toBe(`${JSON.stringify(text.slice(0, QUOTED_ARGUMENT_CHARS))}… (10,000,000 characters)`)
  })

  it("never cuts a surrogate pair in half", () => {
    const text = `${"a".repeat(QUOTED_ARGUMENT_CHARS - 1)}😀${"b".repeat(100)}`
    expect(quoteArgument(text)).toBe(`${JSON.stringify("a".repeat(QUOTED_ARGUMENT_CHARS - 1))}… (${text.length} characters)`)
  })

  it("is at most the head, its quotes and escapes, and the length note, whatever the argument", () => {
    fc.assert(
      fc.property(fc.string({ unit: "binary", maxLength: 5_000 }), (text) => {
        // JSON escapes a character in at most 6 (\u001f), plus two quotes and "… (N characters)".
        expect(quoteArgument(text).length).toBeLessThanOrEqual(QUOTED_ARGUMENT_CHARS * 6 + 2 + 30)
      }),
    )
  })
})

describe("clipText", () => {
  it("keeps a text up to the limit and clips a longer one to its head and length", () => {
    expect(clipText("abc", 3)).toBe("abc")
    expect(clipText("abcdef", 3)).toBe("abc… (6 characters)")
  })
})
