/**
 * Finds exact identifiers in text: file paths, scoped packages, versions, hashes, colour values, error codes,
 * backticked or quoted code names, and code tokens (snake_case, SCREAMING_CASE, camelCase, PascalCase, dotted keys).
 * Every result is a verbatim slice of the input, so a fact built from it stays grounded in its source.
 */

/** One identifier found in a text, with its position (used to cut text without splitting an identifier). */
export type IdentifierSpan = { text: string; start: number; end: number }

/**
 * `prose`: user and assistant text (everything); `command`: a shell command line (paths, packages, versions,
 * hashes, error codes); `code`: source text an edit wrote (no backticks, no bare hex words).
 */
export type IdentifierMode = "prose" | "command" | "code"

/** Identifiers longer than this are noise (minified code, base64, whole commands). */
export const MAX_IDENTIFIER_CHARS = 200

/** The identifiers of `text` in order of appearance, each once (first occurrence). */
export function extractIdentifiers(text: string, mode: IdentifierMode = "prose"): string[] {
  const seen = new Set<string>()
  const result: string[] = []
  for (const span of findIdentifierSpans(text, mode)) {
    if (seen.has(span.text)) continue
    seen.add(span.text)
    result.push(span.text)
  }
  return result
}

/** Non-overlapping identifier spans of `text`, ordered by position; earlier matchers win overlaps. */
export function findIdentifierSpans(text: string, mode: IdentifierMode = "prose"): IdentifierSpan[] {
  const blocked = urlSpans(text)
  const accepted: IdentifierSpan[] = []
  const overlaps = (start: number, end: number): boolean =>
    blocked.some((span) => start < span.end && span.start < end) ||
    accepted.some((span) => start < span.end && span.start < end)
  for (const matcher of MATCHERS) {
    if (!matcher.modes.includes(mode)) continue
    for (const span of matcher.find(text)) {
      if (span.text.length < 2 || span.text.length > MAX_IDENTIFIER_CHARS || span.text.includes("§")) continue
      if (overlaps(span.start, span.end)) continue
      accepted.push(span)
    }
  }
  return accepted.sort((left, right) => left.start - right.start)
}

/**
 * False when no identifier span of `text` can hold a space (a prose span holds one only as a backticked name or a
 * quoted absolute path), so a caller that asks only about spans over a space need not find them.
 */
export function mayHoldSpace(text: string): boolean {
  return text.includes("`") || QUOTED_PATH_OPENING.test(text)
}

/** Path-shaped tokens of `text` (the path matcher alone), with positions; used by the location extractor. */
export function findPathSpans(text: string): IdentifierSpan[] {
  const blocked = urlSpans(text)
  return findPaths(text).filter((span) => !blocked.some((url) => span.start < url.end && url.start < span.end))
}

/** True when `token` looks like a file path (has a known extension, is absolute or relative, or has 2+ slashes). */
export function isPathLike(token: string): boolean {
  if (token.length < 2 || token.includes("//") || token.startsWith("-")) return false
  if (!/[A-Za-z]/.test(token)) return false
  if (FILE_NAMES.has(basename(token))) return true
  if (!token.includes("/")) return hasKnownExtension(token)
  const segments = token.split("/").filter((segment) => segment !== "")
  if (segments.length === 0) return false
  if (token.startsWith("@")) return segments.length === 2
  if (/^(?:\/|\.\.?\/|~\/)/.test(token)) return true
  return hasKnownExtension(token) || segments.length >= 3
}

/** The last path segment. */
export function basename(path: string): string {
  const trimmed = path.endsWith("/") ? path.slice(0, -1) : path
  return trimmed.slice(trimmed.lastIndexOf("/") + 1)
}

type Matcher = { modes: readonly IdentifierMode[]; find: (text: string) => IdentifierSpan[] }

const ALL: readonly IdentifierMode[] = ["prose", "command", "code"]
const PROSE_AND_CODE: readonly IdentifierMode[] = ["prose", "code"]

const URL_PATTERN = /\b(?:https?|ftp|file|wss?):\/\/[^\s<>"'`)\]]+|\bdata:[\w/+.-]+;base64,[A-Za-z0-9+/=]*/g
const BACKTICK = /`([^`\n]{2,100})`/g
const QUOTED = /(?<![\w'"`])(["'])([^"'`\s]{2,100})\1(?![\w])/g
const HEX_COLOR = /(?<![\w#&])#(?:[0-9a-fA-F]{6}|[0-9a-fA-F]{3})(?![\w])/g
const BARE_HEX6 = /(?<![\w#.\/-])[0-9a-fA-F]{6}(?![\w.\/-])/g
const HASH = /(?<![\w#.\/-])[0-9a-f]{7,40}(?![\w\/-]|\.[\w\/-])/g
const NUMBER = "(?:0|[1-9]\\d*)"
const VERSION = new RegExp(
  `(?<![\\w.])(?:v${NUMBER}\\.${NUMBER}(?:\\.${NUMBER})?|${NUMBER}\\.${NUMBER}\\.${NUMBER})` +
    "(?:-[0-9A-Za-z]+(?:\\.[0-9A-Za-z]+)*)?(?![\\w]|\\.\\d)",
  "g",
)
/** An absolute path in quotes may contain spaces (`'/Users/me/Screenshot 2025-11-21 at 01.27.21.png'`). */
const QUOTED_PATH = /(["'])((?:~|\/)[^"'\n]*\/[^"'\n]+?)\1/g
/** Where QUOTED_PATH can start. */
const QUOTED_PATH_OPENING = /["'][~/]/
const ERROR_CODE = /(?<![\w-])(?:TS\d{4,5}|E\d{3,4}|ERR_[A-Z0-9_]+)(?![\w-])/g
const SNAKE = /(?<![\w.$<\/-])_?[a-z][a-z0-9]*(?:_[a-z0-9]+)+(?![\w-])/g
const SCREAMING = /(?<![\w.$<\/-])[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+(?![\w-])/g
const CAMEL = /(?<![\w.$<\/-])[a-z][a-z0-9]*(?:[A-Z][a-z0-9]*)+(?![\w-])/g
const PASCAL = /(?<![\w.$<\/-])[A-Z][a-z0-9]+(?:[A-Z][a-z0-9]*)+(?![\w-])/g
const DOTTED = /(?<![\w.$])[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+(?![\w])/g

const INSTALL = /\b(?:apt-get|apt|brew|npm|pnpm|yarn|bun|pip3?|cargo|gem|go)\s+(?:install|add|i|get)\s+([^\n;&|>]+)/g

/** Brand names written in camel or Pascal case that are not code identifiers. */
const NOT_CODE: ReadonlySet<string> = new Set(
  ["JavaScript", "TypeScript", "GitHub", "GitLab", "macOS", "iOS", "iPhone", "YouTube", "OpenAI"],
)

const EXTENSIONS: ReadonlySet<string> = new Set(
  (
    "ts tsx mts cts js jsx mjs cjs json jsonc jsonl md mdx txt log py pyi c h cc cpp cxx hpp hh rs go java kt kts " +
    "scala rb ex exs eex heex leex erl hrl pony swift mm php lua sh bash zsh fish ps1 bat sql yml yaml toml ini cfg " +
    "conf env lock xml html htm css scss sass less vue svelte astro graphql gql proto csv tsv traj gradle cmake mk " +
    "nix dart zig hs ml clj cs fs jl tf hcl ipynb png jpg jpeg gif svg pdf wasm dylib dll patch diff"
  ).split(" "),
)

const FILE_NAMES: ReadonlySet<string> = new Set(["Makefile", "Dockerfile", "Rakefile", "Gemfile", "Procfile", "Justfile", "CMakeLists.txt"])

/**
 * A run of path characters, matched only where `isPathLike` can accept its token: a token without a "." or "/" is a
 * path only as a well-known file name, so a run that holds neither and is no such name (nearly every word) is passed
 * over without building a match. Each run is matched from its start or not at all, so skipping some leaves the
 * others' matches as they were.
 */
const PATH_RUN = new RegExp(
  `(?<![\\w@~.\\/+<-])(?=[~\\w@+-]*[.\\/]|(?:${[...FILE_NAMES].filter((name) => !/[./]/.test(name)).join("|")})[~@+-]*(?![~\\w@.\\/+-]))` +
    "[~\\w@.\\/+-]*[\\w\\/]",
  "g",
)

const MATCHERS: readonly Matcher[] = [
  { modes: PROSE_AND_CODE, find: (text) => groupSpans(text, QUOTED_PATH, 2, (token) => token.includes(" ")) },
  { modes: ALL, find: findPaths },
  { modes: ["command"], find: findInstalledPackages },
  { modes: ["prose"], find: (text) => groupSpans(text, BACKTICK, 1, isBacktickIdentifier) },
  { modes: PROSE_AND_CODE, find: (text) => groupSpans(text, QUOTED, 2, isQuotedIdentifier) },
  { modes: PROSE_AND_CODE, find: (text) => groupSpans(text, HEX_COLOR, 0) },
  { modes: ["prose"], find: (text) => groupSpans(text, BARE_HEX6, 0, hasLetterAndDigit) },
  { modes: ALL, find: (text) => groupSpans(text, HASH, 0, hasLetterAndDigit) },
  { modes: ALL, find: (text) => groupSpans(text, VERSION, 0) },
  { modes: ALL, find: (text) => groupSpans(text, ERROR_CODE, 0) },
  { modes: PROSE_AND_CODE, find: (text) => groupSpans(text, DOTTED, 0, isDottedIdentifier) },
  { modes: PROSE_AND_CODE, find: (text) => groupSpans(text, SCREAMING, 0) },
  { modes: PROSE_AND_CODE, find: (text) => groupSpans(text, SNAKE, 0, (token) => token.length >= 4) },
  { modes: PROSE_AND_CODE, find: (text) => groupSpans(text, CAMEL, 0, (token) => !NOT_CODE.has(token)) },
  { modes: PROSE_AND_CODE, find: (text) => groupSpans(text, PASCAL, 0, (token) => !NOT_CODE.has(token)) },
]

/** URLs (and data URLs) are never identifiers, and nothing inside one is. */
function urlSpans(text: string): { start: number; end: number }[] {
  return matchAll(text, URL_PATTERN).map((match) => ({ start: match.index, end: match.index + match[0].length }))
}

function findPaths(text: string): IdentifierSpan[] {
  const spans: IdentifierSpan[] = []
  for (const match of matchAll(text, PATH_RUN)) {
    let token = match[0]
    while (token.endsWith(".")) token = token.slice(0, -1)
    if (!isPathLike(token)) continue
    spans.push({ text: token, start: match.index, end: match.index + token.length })
  }
  return spans
}

function findInstalledPackages(text: string): IdentifierSpan[] {
  const spans: IdentifierSpan[] = []
  for (const match of matchAll(text, INSTALL)) {
    const list = match[1] ?? ""
    const listStart = match.index + match[0].length - list.length
    for (const word of matchAll(list, /\S+/g)) {
      if (word[0].startsWith("-") || !/^[@\w][\w@.\/+:=-]*$/.test(word[0])) continue
      spans.push({ text: word[0], start: listStart + word.index, end: listStart + word.index + word[0].length })
    }
  }
  return spans
}

function groupSpans(
  text: string,
  pattern: RegExp,
  group: number,
  accept: (token: string) => boolean = () => true,
): IdentifierSpan[] {
  const spans: IdentifierSpan[] = []
  for (const match of matchAll(text, pattern)) {
    const raw = match[group]
    if (raw === undefined) continue
    const token = raw.trim()
    if (token === "" || !accept(token)) continue
    const start = match.index + match[0].indexOf(raw) + raw.indexOf(token)
    spans.push({ text: token, start, end: start + token.length })
  }
  return spans
}

function isBacktickIdentifier(token: string): boolean {
  if (!/[A-Za-z]/.test(token)) return false
  // A short plain word (`src`, `make`, `view`) names nothing a reader could not guess.
  if (/^[a-z]{1,4}$/.test(token)) return false
  return token.split(/\s+/).length <= 8
}

function isQuotedIdentifier(token: string): boolean {
  if (!/[A-Za-z]/.test(token)) return false
  return /[._\/:#@=-]/.test(token) || /[a-z][A-Z]/.test(token)
}

function isDottedIdentifier(token: string): boolean {
  const segments = token.split(".")
  if (segments.some((segment) => segment.length < 2)) return false
  if (segments.length >= 3) return true
  return segments.some((segment) => /[a-z][A-Z]|_/.test(segment))
}

function hasLetterAndDigit(token: string): boolean {
  return /[a-fA-F]/.test(token) && /\d/.test(token)
}

function hasKnownExtension(token: string): boolean {
  const name = basename(token)
  const dot = name.lastIndexOf(".")
  if (dot <= 0) return false
  return /[A-Za-z]/.test(name.slice(0, dot)) && EXTENSIONS.has(name.slice(dot + 1))
}

function matchAll(text: string, pattern: RegExp): RegExpExecArray[] {
  return [...text.matchAll(pattern)] as RegExpExecArray[]
}
