import { fail, ok, type Result } from "../result.js"

/** The most tags one `ctx_reduce` call may name, so a single call can never queue an unbounded range. */
export const MAX_TAGS_PER_CALL = 500

export type ParsedDrop = {
  /** The tags named, ascending, each once. */
  tags: number[]
  /** Things worth telling the agent that did not stop the call (e.g. a tag listed twice). */
  notes: string[]
}

/**
 * Parses the `drop` argument of `ctx_reduce`: comma-separated tags and inclusive ranges, e.g. `"3-5,8,12-15"`.
 * Accepts `§8§` spellings (adjacent tags such as `§3§§4§` are two) and spaces. Fails with one specific sentence for anything malformed: empty input,
 * a token that is not a tag or a range, a reversed range, zero, or more than MAX_TAGS_PER_CALL tags.
 */
export function parseDropRanges(input: unknown): Result<ParsedDrop> {
  if (typeof input !== "string") return fail(`drop must be a string like "3-5,8", got ${describe(input)}`)
  const cleaned = withoutTagSigns(input).trim()
  if (cleaned.length === 0) return fail('drop is empty: name the tags to drop, like "3-5,8,12-15"')
  const seen = new Set<number>()
  const duplicates = new Set<number>()
  for (const token of cleaned.split(",")) {
    const item = token.trim()
    if (item.length === 0) return fail(`drop "${input}" has an empty item between commas`)
    const range = /^(\d+)\s*-\s*(\d+)$/.exec(item)
    const single = /^\d+$/.exec(item)
    if (!range && !single) return fail(`"${item}" is not a tag number or a range like 3-5`)
    const first = Number(range ? range[1] : item)
    const last = Number(range ? range[2] : item)
    if (!Number.isSafeInteger(first) || !Number.isSafeInteger(last)) return fail(`"${item}" is too large to be a tag`)
    if (first === 0 || last === 0) return fail(`"${item}": tags start at 1`)
    if (last < first) return fail(`"${item}" is a reversed range; write ${last}-${first}`)
    const span = last - first + 1
    if (span > MAX_TAGS_PER_CALL) {
      return fail(`"${item}" names ${span.toLocaleString("en-US")} tags; one call may name at most ${MAX_TAGS_PER_CALL}`)
    }
    for (let tag = first; tag <= last; tag += 1) {
      if (seen.has(tag)) duplicates.add(tag)
      seen.add(tag)
    }
    if (seen.size > MAX_TAGS_PER_CALL) {
      return fail(`drop names more than ${MAX_TAGS_PER_CALL} tags in total; one call may name at most ${MAX_TAGS_PER_CALL}`)
    }
  }
  const notes = duplicates.size > 0 ? [`listed more than once (counted once): ${compactRanges([...duplicates])}`] : []
  return ok({ tags: [...seen].sort((a, b) => a - b), notes })
}

/**
 * The text with its `§` signs taken out, a sign between two numbers read as a separator: `§3§§4§`, `§3§4`, `3§4§`
 * and `§3§ §4§` are 3 and 4 (never 34), `§3§-§5§` is 3-5. The one reading of tag spellings for every tool.
 */
export function withoutTagSigns(text: string): string {
  return text.replace(/(?<=\d)[\s§]*§[\s§]*(?=\d)/g, ",").replace(/§/g, "")
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

function describe(value: unknown): string {
  if (value === undefined) return "nothing"
  if (value === null) return "null"
  return typeof value === "object" ? "an object" : `a ${typeof value}`
}
