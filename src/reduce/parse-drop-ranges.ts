import { fail, ok, type Result } from "../result.js"
import { formatCount, LISTED_TAG_PIECES, MAX_ARGUMENT_CHARS, quoteArgument } from "./answer-bounds.js"

/** The most tags one `ctx_reduce` call may name, so a single call can never queue an unbounded range. */
export const MAX_TAGS_PER_CALL = 500

export type ParsedDrop = {
  /** The tags named, ascending, each once. */
  tags: number[]
  /** Things worth telling the agent that did not stop the call (e.g. a tag listed twice). */
  notes: string[]
}

/** How the argument is named in the answers: ctx_reduce's `drop` (tags to drop), ctx_pin's `tags` (tags to pin). */
export type TagArgument = { name: string; verb: string }

const DROP_ARGUMENT: TagArgument = { name: "drop", verb: "drop" }

/**
 * Parses a tag list argument (ctx_reduce's `drop`, ctx_pin's `tags`): comma-separated tags and inclusive ranges, e.g.
 * `"3-5,8,12-15"`. Accepts `§8§` spellings (adjacent tags such as `§3§§4§` are two) and spaces. Fails with one specific
 * sentence for anything malformed: not a string, longer than MAX_ARGUMENT_CHARS (refused before it is read), empty, a
 * token that is not a tag or a range, a reversed range, zero, or more than MAX_TAGS_PER_CALL tags. Every answer
 * quotes at most a short head of the argument, so it is bounded whatever the input.
 */
export function parseDropRanges(input: unknown, argument: TagArgument = DROP_ARGUMENT): Result<ParsedDrop> {
  const { name, verb } = argument
  if (typeof input !== "string") return fail(`${name} must be a string like "3-5,8", got ${describe(input)}`)
  if (input.length > MAX_ARGUMENT_CHARS) {
    return fail(
      `${name} is ${formatCount(input.length)} characters long; one call takes at most ${formatCount(MAX_ARGUMENT_CHARS)} ` +
        `characters (at most ${MAX_TAGS_PER_CALL} tags, like "3-5,8,12-15")`,
    )
  }
  const cleaned = withoutTagSigns(input).trim()
  if (cleaned.length === 0) return fail(`${name} is empty: name the tags to ${verb}, like "3-5,8,12-15"`)
  const seen = new Set<number>()
  const duplicates = new Set<number>()
  for (const token of cleaned.split(",")) {
    const item = token.trim()
    if (item.length === 0) return fail(`${name} ${quoteArgument(input)} has an empty item between commas`)
    const range = /^(\d+)\s*-\s*(\d+)$/.exec(item)
    const single = /^\d+$/.exec(item)
    if (!range && !single) return fail(`${quoteArgument(item)} is not a tag number or a range like 3-5${foreignNote(item)}`)
    const first = Number(range ? range[1] : item)
    const last = Number(range ? range[2] : item)
    if (!Number.isSafeInteger(first) || !Number.isSafeInteger(last)) return fail(`${quoteArgument(item)} is too large to be a tag`)
    if (first === 0 || last === 0) return fail(`${quoteArgument(item)}: tags start at 1`)
    if (last < first) return fail(`${quoteArgument(item)} is a reversed range; write ${last}-${first}`)
    const span = last - first + 1
    if (span > MAX_TAGS_PER_CALL) {
      return fail(`${quoteArgument(item)} names ${formatCount(span)} tags; one call may name at most ${MAX_TAGS_PER_CALL}`)
    }
    for (let tag = first; tag <= last; tag += 1) {
      if (seen.has(tag)) duplicates.add(tag)
      seen.add(tag)
    }
    if (seen.size > MAX_TAGS_PER_CALL) {
      return fail(`${name} names more than ${MAX_TAGS_PER_CALL} tags in total; one call may name at most ${MAX_TAGS_PER_CALL}`)
    }
  }
  const notes =
    duplicates.size > 0 ? [`listed more than once (counted once): ${tagListText([...duplicates], LISTED_TAG_PIECES)}`] : []
  return ok({ tags: [...seen].sort((a, b) => a - b), notes })
}

/**
 * The text with its `§` signs taken out, a sign between two numbers read as a separator: `§3§§4§`, `§3§4`, `3§4§`
 * and `§3§ §4§` are 3 and 4 (never 34), `§3§-§5§` is 3-5. The one reading of tag spellings for every tool.
 */
export function withoutTagSigns(text: string): string {
  // `\s*§` before `[\s§]*`: only one way to match a run, so a long run of signs is read in linear time (the former
  // `[\s§]*§[\s§]*` tried every split of it: 40,000 signs after a digit took 2.6 s).
  return text.replace(/(?<=\d)\s*§[\s§]*(?=\d)/g, ",").replace(/§/g, "")
}

/**
 * Tags as the agent reads them, `§3-5§, §8§`; past `maxPieces` tags or ranges the rest is counted:
 * `§1§, §3§ and 2 more tags`.
 */
export function tagListText(tags: readonly number[], maxPieces = Number.POSITIVE_INFINITY): string {
  const pieces = compactRanges(tags).split(",").filter(Boolean)
  const shown = pieces.slice(0, maxPieces)
  const text = shown.map((piece) => `§${piece}§`).join(", ")
  if (shown.length === pieces.length) return text
  const hidden = new Set(tags).size - shown.reduce((total, piece) => total + pieceSize(piece), 0)
  return `${text} and ${formatCount(hidden)} more ${hidden === 1 ? "tag" : "tags"}`
}

/** Writes tags as compact ranges: [3,4,5,8] -> "3-5,8". */
export function compactRanges(tags: readonly number[]): string {
  const sorted = [...new Set(tags)].sort((a, b) => a - b)
  const pieces: string[] = []
  let start: number | undefined
  let previous: number | undefined
  for (const tag of sorted) {
    if (start !== undefined && previous !== undefined && tag === previous + 1) {
      previous = tag
      continue
    }
    if (start !== undefined && previous !== undefined) pieces.push(start === previous ? `${start}` : `${start}-${previous}`)
    start = tag
    previous = tag
  }
  if (start !== undefined && previous !== undefined) pieces.push(start === previous ? `${start}` : `${start}-${previous}`)
  return pieces.join(",")
}

/** For an item holding a character that is not ASCII (a lookalike digit, dash or comma), which one it is. */
function foreignNote(item: string): string {
  const foreign = /[^\x00-\x7f]/u.exec(item)?.[0]
  if (foreign === undefined) return ""
  const codePoint = (foreign.codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, "0")
  return ` (it holds ${JSON.stringify(foreign)}, U+${codePoint}: write tags with ASCII digits, "-" and ",")`
}

function pieceSize(piece: string): number {
  const [first, last] = piece.split("-").map(Number)
  return last === undefined ? 1 : last - (first ?? last) + 1
}

function describe(value: unknown): string {
  if (value === undefined) return "nothing"
  if (value === null) return "null"
  return typeof value === "object" ? "an object" : `a ${typeof value}`
}

