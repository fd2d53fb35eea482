/**
 * An independent reading of the tag grammar the ctx_* tools document (their descriptions and docs/ARCHITECTURE.md),
 * written without looking at or calling the code under test:
 *
 * - ctx_reduce `drop`, ctx_pin `tags`: comma-separated tags and inclusive ranges ("3-5,8,12-15"); a tag may be written
 *   `§N§` as the prompt shows it; spaces anywhere between tokens; a `§` between two numbers (with only spaces and other
 *   signs around it) separates them, so `§3§§4§`, `§3§4`, `3§4§` are 3 and 4; tags start at 1; one call names at most
 *   500 tags, and an argument longer than 10,000 characters is refused unread.
 * - ctx_expand `target`: one episode id (`c12`) or one tag (`§42§`, `42`).
 *
 * Whitespace is ECMAScript's (what `trim` removes), spelled out below. Digits are ASCII only.
 */

/** ECMAScript WhiteSpace and LineTerminator code points (ECMA-262 §12.2, §12.3). */
const WHITESPACE = new Set<string>([
  "\t",
  "\n",
  "\v",
  "\f",
  "\r",
  " ",
  "\u00a0",
  "\u1680",
  ...Array.from({ length: 11 }, (_, index) => String.fromCharCode(0x2000 + index)),
  "\u2028",
  "\u2029",
  "\u202f",
  "\u205f",
  "\u3000",
  "\ufeff",
])

export const REFERENCE_MAX_ARGUMENT_CHARS = 10_000
export const REFERENCE_MAX_TAGS = 500
const MAX_SAFE = 2n ** 53n - 1n

type Token =
  | { kind: "number"; value: bigint }
  | { kind: "sign" }
  | { kind: "comma" }
  | { kind: "dash" }
  | { kind: "space" }
  | { kind: "letter-c" }
  | { kind: "other" }

/** Why the reference refuses a tag list. */
export type TagListProblem =
  | "not-a-string"
  | "too-long"
  | "empty"
  | "empty-item"
  | "malformed"
  | "too-large"
  | "zero"
  | "reversed"
  | "span"
  | "total"

export type TagListReading = { ok: true; tags: number[] } | { ok: false; problems: Set<TagListProblem> }

/**
 * The tags a `drop`/`tags` argument names (sorted, each once), or every problem the reference sees in it (a refused
 * argument may have several; the tool must name one of them).
 */
export function readTagList(input: unknown): TagListReading {
  if (typeof input !== "string") return refused("not-a-string")
  if (input.length > REFERENCE_MAX_ARGUMENT_CHARS) return refused("too-long")
  const tokens = withSeparators(lex(input))
  if (tokens.every((token) => token.kind === "space")) return refused("empty")
  const problems = new Set<TagListProblem>()
  const tags = new Set<bigint>()
  for (const item of splitOnCommas(tokens)) {
    const core = trimSpaces(item)
    if (core.length === 0) {
      problems.add("empty-item")
      continue
    }
    // Spaces may stand only around a range's dash ("3 4" is two numbers without a comma: three tokens).
    const words = core.filter((token) => token.kind !== "space")
    const [low, dash, high] = words
    const single = core.length === 1 && low?.kind === "number"
    const range = words.length === 3 && low?.kind === "number" && dash?.kind === "dash" && high?.kind === "number"
    if (!single && !range) {
      problems.add("malformed")
      continue
    }
    const first = (low as { value: bigint }).value
    const last = range ? (high as { value: bigint }).value : first
    const itemProblems: TagListProblem[] = []
    if (first > MAX_SAFE || last > MAX_SAFE) itemProblems.push("too-large")
    if (first === 0n || last === 0n) itemProblems.push("zero")
    if (last < first) itemProblems.push("reversed")
    if (last - first + 1n > BigInt(REFERENCE_MAX_TAGS)) itemProblems.push("span")
    for (const problem of itemProblems) problems.add(problem)
    if (itemProblems.length > 0) continue
    for (let tag = first; tag <= last; tag += 1n) tags.add(tag)
  }
  if (tags.size > REFERENCE_MAX_TAGS) problems.add("total")
  if (problems.size > 0) return { ok: false, problems }
  return { ok: true, tags: [...tags].sort((a, b) => (a < b ? -1 : 1)).map(Number) }
}

/** What a ctx_expand target names. */
export type TargetReading =
  | { kind: "missing" }
  | { kind: "too-long" }
  | { kind: "episode"; number: bigint }
  | { kind: "tag"; number: bigint }
  | { kind: "several" }
  | { kind: "neither" }

/** The readings a ctx_expand target allows (a long blank target is both missing and too long). */
export function readTarget(input: unknown): TargetReading[] {
  if (typeof input !== "string") return [{ kind: "missing" }]
  const blank = [...input].every((character) => WHITESPACE.has(character))
  if (input.length > REFERENCE_MAX_ARGUMENT_CHARS) return blank ? [{ kind: "missing" }, { kind: "too-long" }] : [{ kind: "too-long" }]
  if (blank) return [{ kind: "missing" }]
  const tokens = trimSpaces(withSeparators(lex(input)))
  const [first, second] = tokens
  if (tokens.length === 2 && first?.kind === "letter-c" && second?.kind === "number") return [{ kind: "episode", number: second.value }]
  if (tokens.length === 1 && first?.kind === "number") return [{ kind: "tag", number: first.value }]
  const items = splitOnCommas(tokens).map(trimSpaces)
  if (items.length > 1 && items.every((item) => item.length === 1 && item[0]?.kind === "number")) return [{ kind: "several" }]
  return [{ kind: "neither" }]
}

function lex(input: string): Token[] {
  const tokens: Token[] = []
  let digits = ""
  const flush = (): void => {
    if (digits.length === 0) return
    tokens.push({ kind: "number", value: BigInt(digits) })
    digits = ""
  }
  for (const character of input) {
    if (character >= "0" && character <= "9") {
      digits += character
      continue
    }
    flush()
    if (character === "§") tokens.push({ kind: "sign" })
    else if (character === ",") tokens.push({ kind: "comma" })
    else if (character === "-") tokens.push({ kind: "dash" })
    else if (WHITESPACE.has(character)) tokens.push({ kind: "space" })
    else if (character === "c" || character === "C") tokens.push({ kind: "letter-c" })
    else tokens.push({ kind: "other" })
  }
  flush()
  return tokens
}

/**
 * Signs read away: a run of spaces and signs between two numbers that holds a sign is a comma; every other sign is
 * nothing (a run of spaces stays one space, so "3 4" is still two numbers without a comma).
 */
function withSeparators(tokens: readonly Token[]): Token[] {
  const result: Token[] = []
  let index = 0
  while (index < tokens.length) {
    const token = tokens[index] as Token
    if (token.kind !== "space" && token.kind !== "sign") {
      result.push(token)
      index += 1
      continue
    }
    let end = index
    let signs = 0
    let spaces = 0
    while (end < tokens.length && (tokens[end]?.kind === "space" || tokens[end]?.kind === "sign")) {
      if (tokens[end]?.kind === "sign") signs += 1
      else spaces += 1
      end += 1
    }
    const between = tokens[index - 1]?.kind === "number" && tokens[end]?.kind === "number"
    if (between && signs > 0) result.push({ kind: "comma" })
    else if (spaces > 0) result.push({ kind: "space" })
    index = end
  }
  return result
}

function splitOnCommas(tokens: readonly Token[]): Token[][] {
  const items: Token[][] = [[]]
  for (const token of tokens) {
    if (token.kind === "comma") items.push([])
    else items[items.length - 1]?.push(token)
  }
  return items
}

function trimSpaces(tokens: readonly Token[]): Token[] {
  let start = 0
  let end = tokens.length
  while (start < end && tokens[start]?.kind === "space") start += 1
  while (end > start && tokens[end - 1]?.kind === "space") end -= 1
  return tokens.slice(start, end)
}

function refused(problem: TagListProblem): TagListReading {
  return { ok: false, problems: new Set([problem]) }
}
