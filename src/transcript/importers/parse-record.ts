import type { z } from "zod"
import { PluginError } from "../../plugin-error.js"

/** Where a source record sits: the file, the record in the format's own numbering (null for the whole file). */
export type RecordLocation = { file: string; record: number | null; trajectory?: number }

/** One line of a JSONL file with its 0-based line number. Blank lines are dropped but keep the numbering. */
export type JsonLine = { line: number; text: string }

/** A `transcript_parse` error whose message names the file, the record and the problem in plain words. */
export function transcriptParseError(location: RecordLocation, problem: string): PluginError {
  const file = location.trajectory === undefined ? location.file : `${location.file}#${location.trajectory}`
  const where = location.record === null ? file : `${file}: record ${location.record}`
  return new PluginError("transcript_parse", `${where}: ${problem}`, {
    file: location.file,
    ...(location.trajectory === undefined ? {} : { trajectory: location.trajectory }),
    record: location.record,
    problem,
  })
}

/** Validates one source record against a zod schema, throwing `transcript_parse` with the first issues spelled out. */
export function parseRecord<Schema extends z.ZodType>(
  schema: Schema,
  value: unknown,
  location: RecordLocation,
  pathPrefix: ReadonlyArray<string | number> = [],
): z.output<Schema> {
  const result = schema.safeParse(value)
  if (result.success) return result.data
  const problems = result.error.issues.slice(0, 3).map((issue) => describeIssue([...pathPrefix, ...issue.path], issue))
  throw transcriptParseError(location, problems.join("; "))
}

/** Parses JSON text, throwing `transcript_parse` with the parser's own complaint when it is not valid JSON. */
export function parseJson(text: string, location: RecordLocation): unknown {
  try {
    return JSON.parse(text)
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error)
    throw transcriptParseError(location, `not valid JSON (${reason})`)
  }
}

/** Splits JSONL text into its non-blank lines, numbered from 0 by their position in the file. */
export function splitJsonLines(text: string): JsonLine[] {
  return text
    .split("\n")
    .map((line, index) => ({ line: index, text: line.endsWith("\r") ? line.slice(0, -1) : line }))
    .filter((entry) => entry.text.trim() !== "")
}

/** The parts of a zod issue this module reads; nested union branches carry their own issue lists. */
type IssueLike = {
  code?: string
  path: ReadonlyArray<PropertyKey>
  message: string
  expected?: unknown
  errors?: ReadonlyArray<ReadonlyArray<IssueLike>>
}

function describeIssue(path: ReadonlyArray<PropertyKey>, issue: IssueLike): string {
  const explained = explainUnion(path, issue)
  if (explained !== null) return explained
  const message = issue.message
    .replace(/^Invalid (input|option): /, "")
    .replace(/^Invalid discriminator value\. Expected /, "expected one of ")
  if (path.length === 0) return `the record: ${message}`
  return `${formatPath(path)}: ${message}`
}

/**
 * zod reports a failed union as a bare "Invalid input". When every branch failed on the value's type, this says
 * which types were expected; otherwise it describes the branch that matched deepest, which is what the author meant.
 */
function explainUnion(path: ReadonlyArray<PropertyKey>, issue: IssueLike): string | null {
  const branches = issue.errors
  if (issue.code !== "invalid_union" || branches === undefined || branches.length === 0) return null
  const firstIssues = branches.map((branch) => branch[0])
  const allTypeMismatches = firstIssues.every((first) => first?.code === "invalid_type" && first.path.length === 0)
  if (allTypeMismatches) {
    const expected = firstIssues.map((first) => String(first?.expected)).join(" or ")
    const received = /received (.+)$/.exec(firstIssues[0]?.message ?? "")?.[1]
    const where = path.length === 0 ? "the record" : formatPath(path)
    return `${where}: expected ${expected}${received === undefined ? "" : `, received ${received}`}`
  }
  const deepest = firstIssues.reduce<IssueLike | undefined>((best, first) => {
    if (first === undefined) return best
    return best === undefined || first.path.length > best.path.length ? first : best
  }, undefined)
  if (deepest === undefined) return null
  return describeIssue([...path, ...deepest.path], deepest)
}

function formatPath(path: ReadonlyArray<PropertyKey>): string {
  return path.reduce<string>((text, key) => {
    if (typeof key === "number") return `${text}[${key}]`
    const name = String(key)
    return text === "" ? name : `${text}.${name}`
  }, "")
}
