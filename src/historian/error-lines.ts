/**
 * Recognises failures in tool output. A line is a *strong* error line when it states an error (`Error: …`,
 * `error TS2305: …`, `SyntaxError: …`, `fatal: …`, `E: Unable to locate package …`, `FAILED …`) and a *weak*
 * one when it only signals failure (a non-zero exit code, a `Traceback` header, `make: *** … Error 2`). Output
 * fails when it has a strong line or a non-zero exit note; the fact keeps the first two strong lines verbatim.
 */

/** The verdict on one tool output. */
export type ErrorScan = { failed: boolean; lines: string[] }

/** How many error lines a failure fact keeps. */
export const MAX_ERROR_LINES = 2

/** Longest error line kept (longer lines are cut at a word boundary). */
export const MAX_ERROR_LINE_CHARS = 300

/** Scans tool output (or a tool's error text) for error lines. */
export function findErrorLines(output: string): ErrorScan {
  const lines = output.split("\n").map((line) => line.trim())
  const strong: IndexedLine[] = []
  const weak: IndexedLine[] = []
  const consumed = new Set<number>()
  let exitFailure = false
  lines.forEach((line, index) => {
    if (line === "" || consumed.has(index) || LISTING_LINE.test(line)) return
    if (ERROR_HEADER.test(line)) {
      const next = lines.findIndex((candidate, position) => position > index && candidate !== "")
      const message = lines[next]
      if (message === undefined || isStrong(message)) return
      consumed.add(next)
      strong.push({ index, text: `${line} ${message}` })
      return
    }
    if (isStrong(line)) {
      if (!strong.some((earlier) => earlier.text === line)) strong.push({ index, text: line })
      return
    }
    if (EXIT_NOTE.test(line)) exitFailure = true
    if (EXIT_NOTE.test(line) || WEAK.some((pattern) => pattern.test(line))) weak.push({ index, text: line })
  })
  if (strong.length === 0 && !exitFailure) return { failed: false, lines: [] }
  return { failed: true, lines: chooseLines(strong, weak).map((line) => cutLine(line.text)) }
}

/**
 * The error text of a call that failed without a recognisable error line: the first line that mentions an error or
 * a failure, else the first non-empty line.
 */
export function fallbackErrorLines(text: string): string[] {
  const lines = text
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

function cutLine(line: string): string {
  if (line.length <= MAX_ERROR_LINE_CHARS) return line
  const cut = line.lastIndexOf(" ", MAX_ERROR_LINE_CHARS)
  return `${line.slice(0, cut > MAX_ERROR_LINE_CHARS / 2 ? cut : MAX_ERROR_LINE_CHARS)}…`
}
