/**
 * Recognises failures in tool output. A line is a *strong* error line when it states an error (`Error: …`,
 * `error TS2305: …`, `SyntaxError: …`, `fatal: …`, `E: Unable to locate package …`, `FAILED …`) and a *weak*
 * one when it only signals failure (a non-zero exit code, a `Traceback` header, `make: *** … Error 2`). Output
 * fails when it has a strong line or a non-zero exit note; the fact keeps the first two strong lines verbatim.
 */
import { plainText } from "./plain-text.js"

/** The verdict on one tool output. */
export type ErrorScan = { failed: boolean; lines: string[] }

/** How many error lines a failure fact keeps. */
export const MAX_ERROR_LINES = 2

/** Longest error line kept (longer lines are cut at a word boundary). */
export const MAX_ERROR_LINE_CHARS = 300

/** Which of the optional rules apply (named recognizers `error-cause` and `error-answer`). */
export type ErrorScanOptions = { cause: boolean; answers: boolean }

const ALL_RULES: ErrorScanOptions = { cause: true, answers: true }

/**
 * Scans tool output (or a tool's error text) for error lines, escape codes stripped. With `answers`, a line that is
 * an error answer of a service (HTTP 4xx/5xx status, an invalid key, a JSON `"error"` object) is a strong line; with
 * `cause`, a single strong line keeps the line below it that says why (`Error: request failed` / `  reason: …`).
 */
export function findErrorLines(output: string, options: ErrorScanOptions = ALL_RULES): ErrorScan {
  const lines = plainText(output)
    .split("\n")
    .map((line) => line.replace(BUFFER_LINE_NUMBER, "").trim())
  // A service answers with its error first; further down, "invalid token" is a document's words, not an answer.
  const answerLines = new Set(lines.filter((line) => line !== "").slice(0, ANSWER_LINES))
  const strongLine = (line: string): boolean =>
    isStrong(line) || (options.answers && answerLines.has(line) && !NOT_AN_ANSWER.test(line) && isErrorAnswer(line))
  const strong: IndexedLine[] = []
  const weak: IndexedLine[] = []
  const consumed = new Set<number>()
  let exitFailure = false
  lines.forEach((line, index) => {
    if (line === "" || consumed.has(index) || LISTING_LINE.test(line)) return
    if (ERROR_HEADER.test(line)) {
      const next = lines.findIndex((candidate, position) => position > index && candidate !== "")
      const message = lines[next]
      if (message === undefined || strongLine(message)) return
      consumed.add(next)
      strong.push({ index, text: `${line} ${message}` })
      return
    }
    if (strongLine(line)) {
      if (!strong.some((earlier) => earlier.text === line)) strong.push({ index, text: line })
      return
    }
    if (EXIT_NOTE.test(line)) exitFailure = true
    if (EXIT_NOTE.test(line) || WEAK.some((pattern) => pattern.test(line))) weak.push({ index, text: line })
  })
  if (strong.length === 0 && !exitFailure) return { failed: false, lines: [] }
  const chosen = chooseLines(strong, weak)
  const cause = options.cause && strong.length === 1 && chosen.length === 1 ? causeBelow(lines, chosen[0] as IndexedLine) : null
  return { failed: true, lines: [...chosen, ...(cause ? [cause] : [])].map((line) => cutLine(line.text)) }
}

/** True for any line that states or signals a failure (strong, weak, an exit note, or an error answer). */
export function isErrorLine(line: string): boolean {
  return isStrong(line) || isErrorAnswer(line) || EXIT_NOTE.test(line) || WEAK.some((pattern) => pattern.test(line))
}

/** A service's error answer: an HTTP error status, a rejected key or token, a rate limit, a JSON error object. */
export function isErrorAnswer(line: string): boolean {
  return ERROR_ANSWER.some((pattern) => pattern.test(line))
}

/** The first line below an error line that says why: not blank, not a stack frame, not a separator or a code listing. */
function causeBelow(lines: readonly string[], error: IndexedLine): IndexedLine | null {
  // An open backtick quotes text that goes on below: those lines are the quote, not a cause.
  if ((error.text.match(/`/g) ?? []).length % 2 === 1) return null
  for (let index = error.index + 1; index < Math.min(lines.length, error.index + 5); index += 1) {
    const line = lines[index] ?? ""
    if (line === "" || /^at\s|^[-=~^*_]{3,}$|^\^+$/.test(line) || LISTING_LINE.test(line)) continue
    if (error.text.endsWith(line)) continue
    return isErrorLine(line) ? null : { index, text: line }
  }
  return null
}

/** An error answer is recognised only among the first lines of an output. */
const ANSWER_LINES = 3

/** A list item, a Markdown heading or a search hit (`src/a.ts:41:`): a document's or a file's words, not an answer. */
const NOT_AN_ANSWER = /^(?:[-*•]|#{1,6})\s|^\S+:\d+[:-]/

/** `00012| `: the line numbers of a pty_read buffer (opencode-pty) and of older OpenCode reads. */
const BUFFER_LINE_NUMBER = /^\s*\d{1,6}\| ?/

const ERROR_ANSWER: readonly RegExp[] = [
  /^HTTP\/\d(?:\.\d)?\s+[45]\d\d\b/,
  /\b(?:HTTP\/\d(?:\.\d)?\s+)?[45]\d\d\s+(?:Bad Request|Unauthorized|Forbidden|Not Found|Method Not Allowed|Conflict|Unprocessable Entity|Too Many Requests|Internal Server Error|Bad Gateway|Service Unavailable|Gateway Timeout)\b/i,
  /\b(?:invalid|expired|missing|revoked|incorrect)\s+(?:api[ _-]?key|access token|token|credentials|auth(?:entication|orization)?)\b/i,
  /\brate[ -]limit(?:ed| exceeded)\b|\bquota exceeded\b/i,
  /^\{?\s*"error"\s*:\s*(?:\{|"[^"]+")/,
  /"(?:status|statusCode|status_code)"\s*:\s*[45]\d\d\b/,
]

/**
 * The error text of a call that failed without a recognisable error line: the first line that mentions an error or
 * a failure, else the first non-empty line.
 */
export function fallbackErrorLines(text: string): string[] {
  const lines = plainText(text)
    .split("\n")
    .map((line) => line.trim())
    .filter((line) => line !== "")
  const mention = lines.find((line) => /\berror\b|\bfail(?:ed|ure|s)?\b/i.test(line))
  const chosen = mention ?? lines[0]
  return chosen === undefined ? [] : [cutLine(chosen)]
}

/** Line numbers of a code listing (`cat -n`, SWE-agent `open`): code, not output, so never an error line. */
const LISTING_LINE = /^\d+(?::(?!\d)|\t| {2,}\S)/

/** A line that only announces errors (`ERROR:`, `ERRORS:`); the next line is the message. */
const ERROR_HEADER = /^\s*(?:ERROR|ERRORS|Error|Errors|error|errors)\s*:\s*$/

const STRONG: readonly RegExp[] = [
  /\b[A-Z][A-Za-z]*(?:Error|Exception)\b(?:\s*\[[^\]]*\])?:/,
  /(?:^|[\s:\]>(])(?:error|Error|ERROR)(?:\s+[A-Z]+\d+|\[[\w-]+\])?:\s*\S/,
  /^\s*(?:fatal|FATAL|panic|PANIC):/,
  /\bpanicked at\b/,
  /^E:\s/,
  /\bFAILED\b/,
  /CMake Error\b/,
  /\bAssertionError\b/,
  /\*\* \(\w+(?:Error|Exception)\)/,
  /(?:^|\s)(?:\/bin\/)?(?:ba|z|da)?sh: .*(?:not found|No such file|can't|cannot|Permission denied)/,
  /\b(?:command not found|No such file or directory|Permission denied|Segmentation fault|core dumped)\b/,
  /\b(?:Unable to locate package|Could not find a package|cannot find module|Cannot find module)\b/,
]

const WEAK: readonly RegExp[] = [
  /^Traceback \(most recent call last\)/,
  /^make(?:\[\d+\])?: \*\*\*/,
  /^npm (?:ERR!|error)\b/,
  /^Err:\d/,
  /(?<!\b0 )\bfailed\b(?!:? 0\b)/i,
]

const EXIT_NOTE = /\b(?:Command exited with code|Exit code|exit code|exit status|exited with code)\s*:?\s*[1-9]\d*\b/

type IndexedLine = { index: number; text: string }

/** The first two strong lines; a single strong line keeps the weak line that led to it (a Traceback header). */
function chooseLines(strong: IndexedLine[], weak: IndexedLine[]): IndexedLine[] {
  const first = strong[0]
  if (first === undefined) return weak.slice(0, 1)
  if (strong.length > 1) return strong.slice(0, MAX_ERROR_LINES)
  const lead = weak.filter((line) => line.index < first.index).at(-1)
  return lead === undefined ? [first] : [lead, first]
}

function isStrong(line: string): boolean {
  return STRONG.some((pattern) => pattern.test(line))
}

/** A long line is cut at a word boundary, never inside a backtick span (an identifier cut in half names nothing). */
function cutLine(line: string): string {
  if (line.length <= MAX_ERROR_LINE_CHARS) return line
  const cut = line.lastIndexOf(" ", MAX_ERROR_LINE_CHARS)
  let kept = line.slice(0, cut > MAX_ERROR_LINE_CHARS / 2 ? cut : MAX_ERROR_LINE_CHARS)
  if ((kept.match(/`/g) ?? []).length % 2 === 1) kept = kept.slice(0, kept.lastIndexOf("`")).trimEnd()
  return `${kept}…`
}
