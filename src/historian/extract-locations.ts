import { findPathSpans } from "./extract-identifiers.js"

/**
 * A place in a file. `text` is normalized to `path:line`, `path:line:col` or `path:start-end`; the path itself is
 * verbatim from the source (line numbers decay first, so the compact tier keeps only `path`).
 */
export type LocationMatch = { text: string; path: string }

/**
 * Finds `path:line[:col]`, `path(line,col)` (TypeScript), `File "path", line N` (Python), `line N of path` and
 * `path, line N` in text, and with `dotnet` (rule `dotnet-locations`) a .NET frame's `path:line N`, kept in that
 * spelling. Each location is reported once, in order of appearance.
 */
export function extractLocations(text: string, options: { dotnet?: boolean } = {}): LocationMatch[] {
  const found: LocationMatch[] = []
  const seen = new Set<string>()
  for (const span of findPathSpans(text)) {
    const after = text.slice(span.end, span.end + 40)
    const before = text.slice(Math.max(0, span.start - 40), span.start)
    const dotnet = options.dotnet === true ? AFTER_DOTNET.exec(after) : null
    const lines = dotnet === null ? (linesAfter(after) ?? linesBefore(before)) : { line: Number(dotnet[1]), dotnet: true }
    if (lines === null) continue
    const location = formatLocation(span.text, lines)
    if (seen.has(location.text)) continue
    seen.add(location.text)
    found.push(location)
  }
  return found
}

/** The location of a path at a line (and optional column or end line). */
export function formatLocation(path: string, lines: LineRef): LocationMatch {
  if (lines.endLine !== undefined && lines.endLine > lines.line) {
    return { text: `${path}:${lines.line}-${lines.endLine}`, path }
  }
  if (lines.dotnet === true) return { text: `${path}:line ${lines.line}`, path }
  const column = lines.column === undefined ? "" : `:${lines.column}`
  return { text: `${path}:${lines.line}${column}`, path }
}

/** The path of a normalized location (its line numbers removed). */
export function locationPath(location: string): string {
  return location.replace(/:(?:\d+(?::\d+|-\d+)?|line \d+)$/, "")
}

/** A line, with an optional column or end line; `dotnet` spells it as .NET does (`path:line 36`). */
export type LineRef = { line: number; column?: number; endLine?: number; dotnet?: boolean }

/** .NET's stack frame place: `in /src/App/Program.cs:line 36`. */
const AFTER_DOTNET = /^:line (\d+)(?!\d)/
const AFTER_COLON = /^:(\d+)(?::(\d+))?(?!\d)/
const AFTER_PARENS = /^\((\d+),(\d+)\)/
const AFTER_WORDS = /^"?,?\s+(?:at\s+|on\s+)?lines?\s+(\d+)(?:\s*[-–]\s*(\d+))?\b/
const BEFORE_WORDS = /\blines?\s+(\d+)(?:\s*[-–]\s*(\d+))?\s+(?:of|in)\s+[`'"]?$/

function linesAfter(after: string): LineRef | null {
  const colon = AFTER_COLON.exec(after)
  if (colon) return withOptional(Number(colon[1]), { column: colon[2] })
  const parens = AFTER_PARENS.exec(after)
  if (parens) return { line: Number(parens[1]), column: Number(parens[2]) }
  const words = AFTER_WORDS.exec(after)
  if (words) return withOptional(Number(words[1]), { endLine: words[2] })
  return null
}

function linesBefore(before: string): LineRef | null {
  const words = BEFORE_WORDS.exec(before)
  if (!words) return null
  return withOptional(Number(words[1]), { endLine: words[2] })
}

function withOptional(line: number, extra: { column?: string | undefined; endLine?: string | undefined }): LineRef {
  const ref: LineRef = { line }
  if (extra.column !== undefined) ref.column = Number(extra.column)
  if (extra.endLine !== undefined) ref.endLine = Number(extra.endLine)
  return ref
}
