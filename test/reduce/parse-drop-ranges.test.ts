import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { MAX_ARGUMENT_CHARS, MAX_TOOL_ANSWER_CHARS, quoteArgument } from "../../src/reduce/answer-bounds.js"
import {
  compactRanges,
  MAX_TAGS_PER_CALL,
  parseDropRanges,
  tagListText,
  withoutTagSigns,
} from "../../src/reduce/parse-drop-ranges.js"

describe("parseDropRanges", () => {
  it.each<[string, string, number[], string[]]>([
    ["singles and ranges", "3-5,8,12-15", [3, 4, 5, 8, 12, 13, 14, 15], []],
    ["tag signs and spaces", " §3§ - §5§ , 8 ", [3, 4, 5, 8], []],
    ["a tag as written in the prompt", "§12§", [12], []],
    ["tabs around the items", "\t3\t,\t4 -\t6", [3, 4, 5, 6], []],
    ["an unsorted list", "9,2,5", [2, 5, 9], []],
    ["a one-tag range", "7-7", [7], []],
    ["leading zeros", "007,010-011", [7, 10, 11], []],
    ["exactly the most one call may name", "1-500", range(1, 500), []],
    ["the most tags across items", "1-250,251-500", range(1, 500), []],
    ["duplicates", "3-5,4,5,9,9", [3, 4, 5, 9], ["listed more than once (counted once): §4-5§, §9§"]],
    ["overlapping ranges", "1-4,3-6", [1, 2, 3, 4, 5, 6], ["listed more than once (counted once): §3-4§"]],
  ])("parses %s: %j", (_name, input, tags, notes) => {
    expect(parseDropRanges(input)).toEqual({ ok: true, value: { tags, notes } })
  })

  it.each<[string, unknown, string]>([
    ["a reversed range", "5-3", '"5-3" is a reversed range; write 3-5'],
    ["a word", "a", '"a" is not a tag number or a range like 3-5'],
    ["a range beyond the cap", "1-999999999", '"1-999999999" names 999,999,999 tags; one call may name at most 500'],
    ["one tag more than the cap", "1-501", '"1-501" names 501 tags; one call may name at most 500'],
    [
      "more than the cap across items",
      "1-300,301-501",
      "drop names more than 500 tags in total; one call may name at most 500",
    ],
    ["an empty string", "", 'drop is empty: name the tags to drop, like "3-5,8,12-15"'],
    ["only spaces", "   ", 'drop is empty: name the tags to drop, like "3-5,8,12-15"'],
    ["only tag signs", "§§", 'drop is empty: name the tags to drop, like "3-5,8,12-15"'],
    ["a lone comma", ",", 'drop "," has an empty item between commas'],
    ["two commas in a row", "3,,4", 'drop "3,,4" has an empty item between commas'],
    ["a trailing comma", "3,", 'drop "3," has an empty item between commas'],
    ["zero", "0", '"0": tags start at 1'],
    ["a range ending at zero", "1-0", '"1-0": tags start at 1'],
    ["a range from zero", "0-3", '"0-3": tags start at 1'],
    ["a number beyond MAX_SAFE_INTEGER", "9007199254740993", '"9007199254740993" is too large to be a tag'],
    ["a range ending beyond MAX_SAFE_INTEGER", "1-99999999999999999", '"1-99999999999999999" is too large to be a tag'],
    ["an open range", "3-", '"3-" is not a tag number or a range like 3-5'],
    ["a negative number", "-3", '"-3" is not a tag number or a range like 3-5'],
    ["a chained range", "3-5-7", '"3-5-7" is not a tag number or a range like 3-5'],
    ["a decimal", "1.5", '"1.5" is not a tag number or a range like 3-5'],
    ["a signed number", "+3", '"+3" is not a tag number or a range like 3-5'],
    ["two numbers without a comma", "3 4", '"3 4" is not a tag number or a range like 3-5'],
    [
      "non-ASCII digits",
      "٣",
      '"٣" is not a tag number or a range like 3-5 (it holds "٣", U+0663: write tags with ASCII digits, "-" and ",")',
    ],
    [
      "an en dash for a hyphen",
      "3–5",
      '"3–5" is not a tag number or a range like 3-5 (it holds "–", U+2013: write tags with ASCII digits, "-" and ",")',
    ],
    [
      "a fullwidth comma",
      "3，4",
      '"3，4" is not a tag number or a range like 3-5 (it holds "，", U+FF0C: write tags with ASCII digits, "-" and ",")',
    ],
    ["undefined", undefined, 'drop must be a string like "3-5,8", got nothing'],
    ["null", null, 'drop must be a string like "3-5,8", got null'],
    ["a number", 42, 'drop must be a string like "3-5,8", got a number'],
    ["an object", {}, 'drop must be a string like "3-5,8", got an object'],
    ["an array", ["3-5"], 'drop must be a string like "3-5,8", got an object'],
    ["a boolean", true, 'drop must be a string like "3-5,8", got a boolean'],
  ])("refuses %s with one sentence", (_name, input, message) => {
    expect(parseDropRanges(input)).toEqual({ ok: false, error: message })
  })

  it("returns exactly the sorted unique set, however the tags are written", () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.integer({ min: 1, max: 5_000 }), { minLength: 1, maxLength: MAX_TAGS_PER_CALL }),
        fc.infiniteStream(fc.nat()),
        fc.infiniteStream(fc.constantFrom("", " ", "  ", "\t")),
        (tags, choices, spaces) => {
          const pieces = writtenPieces(tags, choices)
          const repeated = pieces.length > 1 && choices.next().value % 4 === 0
          const listed = repeated ? [...pieces, pieces[0] as Piece] : pieces
          const text = listed.map((piece) => spell(piece, choices, spaces)).join(
            `${spaces.next().value},${spaces.next().value}`,
          )
          const parsed = parseDropRanges(text)
          expect(parsed.ok, text).toBe(true)
          if (!parsed.ok) return
          expect(parsed.value.tags).toEqual([...tags].sort((a, b) => a - b))
          expect(parsed.value.notes.length > 0).toBe(repeated)
        },
      ),
      { numRuns: 200 },
    )
  })

  it("refuses every range longer than MAX_TAGS_PER_CALL", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 1_000_000_000 }),
        fc.integer({ min: MAX_TAGS_PER_CALL + 1, max: 10_000_000 }),
        (first, span) => {
          const last = first + span - 1
          const count = span.toLocaleString("en-US")
          expect(parseDropRanges(`${first}-${last}`)).toEqual({
            ok: false,
            error: `"${first}-${last}" names ${count} tags; one call may name at most ${MAX_TAGS_PER_CALL}`,
          })
        },
      ),
    )
  })

  it("never throws, and anything it accepts is an ascending set of at most MAX_TAGS_PER_CALL positive tags", () => {
    const strings = fc.oneof(
      fc.string(),
      fc.string({ unit: "binary" }),
      fc.string({ unit: "grapheme" }),
      fc.stringMatching(/^[0-9§ ,\-]{0,30}$/),
    )
    fc.assert(
      fc.property(strings, (input) => {
        const parsed = parseDropRanges(input)
        if (!parsed.ok) {
          expect(parsed.error.length).toBeGreaterThan(0)
          return
        }
        const { tags } = parsed.value
        expect(tags.length).toBeGreaterThan(0)
        expect(tags.length).toBeLessThanOrEqual(MAX_TAGS_PER_CALL)
        tags.forEach((tag, index) => {
          expect(Number.isSafeInteger(tag) && tag >= 1).toBe(true)
          if (index > 0) expect(tag).toBeGreaterThan(tags[index - 1] ?? Infinity)
        })
      }),
      { numRuns: 500 },
    )
  })

  it("never throws for any value that is not a string", () => {
    fc.assert(
      fc.property(
        fc.anything().filter((value) => typeof value !== "string"),
        (value) => {
          const parsed = parseDropRanges(value)
          expect(parsed.ok).toBe(false)
        },
      ),
    )
  })
})

describe("bounded answers", () => {
  it("refuses an argument over MAX_ARGUMENT_CHARS before reading it, and says how long it is", () => {
    const text = "1,".repeat(5 * 1024 * 1024)
    const started = performance.now()
    const parsed = parseDropRanges(text)
    const elapsedMs = performance.now() - started
    expect(parsed).toEqual({
      ok: false,
      error:
        "drop is 10,485,760 characters long; one call takes at most 10,000 characters (at most 500 tags, like " +
        '"3-5,8,12-15")',
    })
    expect(MAX_ARGUMENT_CHARS).toBe(10_000)
    expect(elapsedMs).toBeLessThan(200)
  })

  it("reads an argument of exactly MAX_ARGUMENT_CHARS", () => {
    const text = `${"7,".repeat(MAX_ARGUMENT_CHARS / 2 - 1)}8 `
    expect(text.length).toBe(MAX_ARGUMENT_CHARS)
    expect(parseDropRanges(text)).toEqual({
      ok: true,
      value: { tags: [7, 8], notes: ["listed more than once (counted once): §7§"] },
    })
  })

  it.each<[string, string, string]>([
    ["a long word", "a".repeat(9_000), `${quoteArgument("a".repeat(9_000))} is not a tag number or a range like 3-5`],
    [
      "a long list with an empty item at its end",
      "1,".repeat(4_000),
      `drop ${quoteArgument("1,".repeat(4_000))} has an empty item between commas`,
    ],
    [
      "a long item of digits",
      "9".repeat(5_000),
      `${quoteArgument("9".repeat(5_000))} is too large to be a tag`,
    ],
  ])("quotes only the head of a bad argument (%s) and says its length", (_name, input, error) => {
    expect(parseDropRanges(input)).toEqual({ ok: false, error })
    expect(error.length).toBeLessThan(200)
    expect(error).toMatch(/… \([\d,]+ characters\)/)
  })

  it("names tags listed twice as a few ranges and a count, not the whole list", () => {
    const odd = Array.from({ length: 250 }, (_, index) => 2 * index + 1)
    const parsed = parseDropRanges([...odd, ...odd].join(","))
    expect(parsed.ok && parsed.value.notes).toEqual([
      "listed more than once (counted once): §1§, §3§, §5§, §7§, §9§, §11§ and 244 more tags",
    ])
  })

  it("never answers with more than MAX_TOOL_ANSWER_CHARS, whatever the argument", () => {
    const long = fc.oneof(
      fc.string({ maxLength: MAX_ARGUMENT_CHARS + 10 }),
      // Long arguments: a random piece repeated up to past the bound.
      fc
        .tuple(fc.string({ minLength: 1, maxLength: 8 }), fc.integer({ min: 1, max: 3_000 }))
        .map(([piece, times]) => piece.repeat(times)),
      fc.stringMatching(/^[0-9§ ,\-x]{0,12000}$/),
      fc.array(fc.integer({ min: 1, max: 2_000 }), { maxLength: 600 }).map((tags) => tags.join(",")),
    )
    fc.assert(
      fc.property(long, (input) => {
        const parsed = parseDropRanges(input)
        const text = parsed.ok ? parsed.value.notes.join("\n") : parsed.error
        expect(text.length).toBeLessThanOrEqual(MAX_TOOL_ANSWER_CHARS)
      }),
      { numRuns: 200 },
    )
  })
})

describe("withoutTagSigns", () => {
  it.each([
    ["one digit and a million signs", `1${"§".repeat(1_000_000)}`],
    ["a million signs between two digits", `1${"§".repeat(1_000_000)}2`],
    ["signs and spaces alternating", `1${"§ ".repeat(500_000)}`],
  ])("reads %s in linear time", (_name, text) => {
    const started = performance.now()
    withoutTagSigns(text)
    // Quadratic, a million signs took hours (40,000 took 2.6 s).
    expect(performance.now() - started).toBeLessThan(1_000)
  })
})

describe("tagListText", () => {
  it.each<[number[], number | undefined, string]>([
    [[], undefined, ""],
    [[7], undefined, "§7§"],
    [[3, 4, 5, 8], undefined, "§3-5§, §8§"],
    [[1, 3, 5, 7], 2, "§1§, §3§ and 2 more tags"],
    [[1, 2, 3, 5, 7, 8, 9, 20], 2, "§1-3§, §5§ and 4 more tags"],
    [[1, 3, 5], 2, "§1§, §3§ and 1 more tag"],
    [[1, 3], 2, "§1§, §3§"],
  ])("writes %j (at most %s pieces) as %j", (tags, maxPieces, text) => {
    expect(tagListText(tags, maxPieces)).toBe(text)
  })
})

describe("adjacent tag spellings", () => {
  it.each([
    ["§3§§4§", [3, 4]],
    ["§3§4", [3, 4]],
    ["3§4§", [3, 4]],
    ["§3§ §4§", [3, 4]],
    ["§3§-§5§", [3, 4, 5]],
    ["§34§", [34]],
    ["§3§§4§,§10§-§12§", [3, 4, 10, 11, 12]],
  ])("reads %s as %j, never as one larger tag", (input, tags) => {
    const parsed = parseDropRanges(input)
    expect(parsed.ok && parsed.value.tags).toEqual(tags)
  })

  it("agrees with an independent reading of the grammar on random tag lists written with signs", () => {
    // Independent reading: each tag written as §N§ and joined by nothing, a comma or a space is that list.
    const tagList = fc.uniqueArray(fc.integer({ min: 1, max: 9_999 }), { minLength: 1, maxLength: 20 })
    const joiner = fc.constantFrom("", ",", " ", ", ")
    fc.assert(
      fc.property(tagList, joiner, (tags, join) => {
        const parsed = parseDropRanges(tags.map((tag) => `§${tag}§`).join(join))
        expect(parsed.ok && parsed.value.tags).toEqual([...tags].sort((a, b) => a - b))
      }),
    )
  })
})

describe("compactRanges", () => {
  it.each<[number[], string]>([
    [[], ""],
    [[7], "7"],
    [[3, 4, 5, 8], "3-5,8"],
    [[8, 5, 4, 3], "3-5,8"],
    [[1, 3], "1,3"],
    [[4, 4, 5, 5], "4-5"],
    [[1, 2, 3, 10, 11, 20], "1-3,10-11,20"],
  ])("writes %j as %j", (tags, written) => {
    expect(compactRanges(tags)).toBe(written)
  })

  it("round-trips through parseDropRanges", () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 1, max: 2_000 }), { minLength: 1, maxLength: MAX_TAGS_PER_CALL }),
        (tags) => {
          const parsed = parseDropRanges(compactRanges(tags))
          expect(parsed).toEqual({ ok: true, value: { tags: [...new Set(tags)].sort((a, b) => a - b), notes: [] } })
        },
      ),
    )
  })
})

type Piece = { first: number; last: number }

/** Splits the sorted tags into consecutive runs, cuts some runs further, and shuffles the pieces. */
function writtenPieces(tags: readonly number[], choices: Iterator<number>): Piece[] {
  const sorted = [...tags].sort((a, b) => a - b)
  const pieces: Piece[] = []
  for (const tag of sorted) {
    const current = pieces.at(-1)
    const cut = choices.next().value % 3 === 0
    if (current && current.last === tag - 1 && !cut) current.last = tag
    else pieces.push({ first: tag, last: tag })
  }
  for (let index = pieces.length - 1; index > 0; index -= 1) {
    const other = choices.next().value % (index + 1)
    const swap = pieces[index] as Piece
    pieces[index] = pieces[other] as Piece
    pieces[other] = swap
  }
  return pieces
}

/**
 * A piece as an agent might write it: "4", "4-6", "§4§ - §6§", with random spaces; a one-tag piece sometimes as
 * "4-4".
 */
function spell(piece: Piece, choices: Iterator<number>, spaces: Iterator<string>): string {
  const number = (value: number): string => (choices.next().value % 2 === 0 ? `§${value}§` : String(value))
  const single = piece.first === piece.last && choices.next().value % 4 !== 0
  const body = single
    ? number(piece.first)
    : `${number(piece.first)}${spaces.next().value}-${spaces.next().value}${number(piece.last)}`
  return `${spaces.next().value}${body}${spaces.next().value}`
}

function range(first: number, last: number): number[] {
  return Array.from({ length: last - first + 1 }, (_, index) => first + index)
}
