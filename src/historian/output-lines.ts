/**
 * What DENSE keeps of a tool's output, an attachment or an edit: whole lines, verbatim (escape codes stripped), chosen
 * by named line recognizers (session/recognizers.ts) according to the tool's row (session/host-tools.ts), bounded per
 * output. Lines keep their order. Pure; never throws on any content.
 */
import type { OutputKeep } from "../session/host-tools.js"
import type { Recognizers } from "../session/recognizers.js"
import { isErrorLine } from "./error-lines.js"
import { isLimit, isRuleLine, ruleReading, scanLines } from "./document-rules.js"
import { isDefinitionHit, isSettingLine, settingReading } from "./output-facts.js"
import { plainText } from "./plain-text.js"
import { takeVaried } from "./line-shapes.js"
import { isHeading, isLongOutput, isReaderInstruction, isReferenceLine } from "./reference-lines.js"

/** The most lines DENSE keeps of one output, by what the row says the output is. */
export const MAX_KEPT_LINES: Readonly<Record<OutputKeep, number>> = {
  document: 10,
  code: 10,
  command: 4,
  search: 3,
  edit: 3,
  none: 0,
  generic: 8,
}

/** Without `more-document-lines`, the most lines DENSE keeps of a document (the limit first written blind). */
const BLIND_DOCUMENT_LINES = 6

/** A kept line is cut to about this many characters (at a word boundary). */
export const MAX_KEPT_LINE_CHARS = 200

/** An error block keeps its first line and up to this many lines after it (the cause is often a few lines below). */
export const ERROR_CAUSE_LINES = 3

type Candidate = { index: number; text: string; priority: number }

/** `places`: how many lines DENSE keeps, when not what the row's kind of output keeps (MAX_KEPT_LINES). */
type OutputOptions = { keep: OutputKeep; output: string; failed: boolean; recognizers: Recognizers; places?: number }

/** The lines DENSE keeps of one output. */
export function keptOutputLines(options: OutputOptions): string[] {
  return outputLines(options).kept
}

/** Without `echoed-key-lines`, at most this many of an output's kept lines are key lines (COMPACT's `Noted`). */
export const MAX_KEY_LINES = 2

/**
 * The key lines of an output, a subset of what DENSE keeps: an error with its cause, a rule, a limit or default, a
 * result summary, the facts worth a line even in COMPACT. With `echoed-key-lines` all of them are candidates (the
 * episode keeps those its agent's text takes up again, echoed-lines.ts); without it the first MAX_KEY_LINES.
 */
export function keyOutputLines(options: OutputOptions): string[] {
  return outputLines(options).key
}

/** Both at once, from one scan of the output: what DENSE keeps and the key lines among them. */
export function outputLines(options: OutputOptions): { kept: string[]; key: string[] } {
  const scored = scoredOutputLines(options)
  const key = options.recognizers.on("compact-key-lines")
    ? scored
        // Neither a stack frame (line numbers are DENSE's), a bare exit note nor a table's header row says what happened.
        .filter((line) => line.priority <= 1 && !STACK_FRAME.test(line.text) && !EXIT_ONLY.test(line.text) && !TABLE_HEADER.test(line.text))
        .slice(0, options.recognizers.on("echoed-key-lines") ? undefined : MAX_KEY_LINES)
        .map((line) => line.text)
    : []
  return { kept: scored.map((line) => line.text), key }
}

function scoredOutputLines(options: OutputOptions): { text: string; priority: number }[] {
  const { keep, recognizers } = options
  const blindDocument = keep === "document" && !recognizers.on("more-document-lines")
  const limit = options.places ?? (blindDocument ? BLIND_DOCUMENT_LINES : MAX_KEPT_LINES[keep])
  if (limit === 0 && !options.failed) return []
  const lines = scanLines(options.output)
  // By line index: an output where every line is a candidate stays linear.
  const candidates = new Map<number, Candidate>()
  const add = (index: number, priority: number): void => {
    const text = lines[index]
    if (text === undefined || text === "") return
    const known = candidates.get(index)
    if (known) known.priority = Math.min(known.priority, priority)
    else candidates.set(index, { index, text, priority })
  }
  if (recognizers.on("error-cause") && (options.failed || keep === "command" || keep === "generic")) {
    errorBlock(lines, recognizers.on("first-stack-frame")).forEach((index) => add(index, 0))
  }
  const reference = recognizers.on("reference-lines") && isLongOutput(options.output)
  lines.forEach((line, index) => {
    const priority = linePriority(line, keep, recognizers)
    if (priority !== null) add(index, priority)
    else if (reference && keep === "document" && isReferenceLine(line) && !isInstruction(line, recognizers)) add(index, 2)
  })
  // A heading of a long reference goes with the first line under it: together they say what the section is for. They
  // take what room the other lines leave.
  if (reference && keep === "document") {
    lines.forEach((line, index) => {
      if (!isHeading(line) || isInstruction(line, recognizers)) return
      const next = lines.findIndex((other, at) => at > index && other !== "")
      if (next === -1 || isHeading(lines[next] ?? "")) return
      add(index, 4)
      add(next, 4)
    })
  }
  // A search's first hits are DENSE's; a hit with the line it found (`src/a.ts:5:import …`) is a key line, a bare
  // path is not (it is already an identifier).
  if (keep === "search") {
    const hit = (line: string): number => {
      if (recognizers.on("definition-hits") && isDefinitionHit(line)) return 0
      return recognizers.on("grep-hits") && CONTENT_HIT.test(line) ? 1 : 2
    }
    lines.slice(0, limit).forEach((line, index) => add(index, hit(line)))
    // A declaring hit further down still goes first (it is where the name is defined).
    if (recognizers.on("definition-hits")) lines.forEach((line, index) => isDefinitionHit(line) && add(index, 0))
  }
  if (keep === "command" || keep === "generic") {
    const nonEmpty = lines.map((line, index) => ({ line, index })).filter(({ line }) => line !== "")
    // How a command ended is never a stack frame (the error block keeps the first one).
    nonEmpty.filter(({ line }) => !STACK_FRAME.test(line)).slice(-2).forEach(({ index }) => add(index, 3))
    if (keep === "generic") nonEmpty.slice(0, 2).forEach(({ index }) => add(index, 3))
  }
  const cap = Math.max(limit, options.failed ? ERROR_CAUSE_LINES + 1 : 0)
  const sorted = [...candidates.values()].sort((a, b) => a.priority - b.priority || a.index - b.index)
  // Past a few lines of one shape, a line of another shape goes first within its priority (`varied-shapes`).
  const taken = recognizers.on("varied-shapes") ? takeVaried(sorted, cap) : sorted.slice(0, cap)
  const chosen = taken.sort((a, b) => a.index - b.index)
  const kept: { text: string; priority: number }[] = []
  for (const candidate of chosen) {
    const line = cutLine(candidate.text)
    if (!kept.some((known) => known.text === line)) kept.push({ text: line, priority: candidate.priority })
  }
  return kept
}

/** A line telling its reader what to keep (`reader-instructions`). */
function isInstruction(line: string, recognizers: Recognizers): boolean {
  return recognizers.on("reader-instructions") && isReaderInstruction(line)
}

/** The lines an edit added that DENSE keeps: setting, rule and id lines first, then the first ones, bounded. */
export function keptAddedLines(added: readonly string[], limit: number, recognizers: Recognizers): string[] {
  if (!recognizers.on("edit-added-lines")) return []
  const lines = added.map((line) => plainText(line).trim())
  const candidates = lines
    .map((text, index) => ({ text, index, priority: text === "" || /^[{}()[\];,]*$/.test(text) ? null : (linePriority(text, "document", recognizers) ?? 5) }))
    .filter((candidate): candidate is Candidate => candidate.priority !== null)
  return candidates
    .sort((a, b) => a.priority - b.priority || a.index - b.index)
    .slice(0, limit)
    .sort((a, b) => a.index - b.index)
    .map((candidate) => cutLine(candidate.text))
}

/** How much a line is worth keeping (lower is more), or null when no recognizer wants it. */
function linePriority(line: string, keep: OutputKeep, recognizers: Recognizers): number | null {
  if (line.length < 4) return null
  // A line telling its reader what to keep is no fact, whatever rule words it uses.
  if (isInstruction(line, recognizers)) return null
  if (keep === "code") {
    // A comment says what the code means (`// at most 5 retries: the gateway bans more`); code only sets values.
    const comment = COMMENT.exec(line)
    if (comment !== null) return linePriority(comment[1] ?? "", "document", recognizers)
    return recognizers.on("code-setting-lines") && isSettingLine(line, settingReading(recognizers)) ? 2 : null
  }
  const on = (name: string, pattern: RegExp): boolean => recognizers.on(name) && pattern.test(line)
  if (keep === "command" || keep === "generic") {
    if (on("result-summaries", RESULT_SUMMARY) && !PASSING_ITEM.test(line)) return 1
    if (recognizers.on("id-lines") && isIdLine(line, recognizers)) return 2
  }
  if (keep === "document" || keep === "generic") {
    const reading = ruleReading(recognizers)
    if (recognizers.on("doc-rule-lines") && isRuleLine(line, reading)) return 1
    if (recognizers.on("doc-limit-lines") && isLimit(line, reading)) return 1
    if (on("doc-version-lines", VERSION_LINE)) return 2
    if (on("doc-decision-lines", DECISION_LINE)) return 2
    if (recognizers.on("code-setting-lines") && isSettingLine(line, settingReading(recognizers))) return 2
    if (recognizers.on("id-lines") && isIdLine(line, recognizers)) return 3
  }
  return null
}

/** The first error line (and the lines below it that give the cause), plus a final error line further down. */
function errorBlock(lines: readonly string[], firstFrame: boolean): number[] {
  const first = lines.findIndex((line) => line !== "" && isErrorLine(line))
  if (first < 0) return []
  const block = [first]
  let frame = false
  for (let index = first + 1; index < lines.length && block.length <= ERROR_CAUSE_LINES; index += 1) {
    const line = lines[index] ?? ""
    if (line === "") continue
    // A stack keeps its first frame (where it was thrown, rule `first-stack-frame`), not the rest.
    const isFrame = STACK_FRAME.test(line)
    if (isFrame && (frame || !firstFrame)) continue
    frame ||= isFrame
    block.push(index)
  }
  const last = lines.findLastIndex((line) => line !== "" && isErrorLine(line))
  if (last > (block.at(-1) ?? first)) block.push(last)
  return block
}

function cutLine(line: string): string {
  if (line.length <= MAX_KEPT_LINE_CHARS) return line
  const cut = line.lastIndexOf(" ", MAX_KEPT_LINE_CHARS)
  return `${line.slice(0, cut > MAX_KEPT_LINE_CHARS / 2 ? cut : MAX_KEPT_LINE_CHARS)}…`
}

const VERSION_LINE = /\b(?:v?\d+\.\d+\.\d+(?:-[\w.]+)?|version\s*:?\s*v?\d+(?:\.\d+)*|(?:>=|<=|\^|~>?)\s*v?\d+\.\d+)\b/i

const DECISION_LINE =
  /\b(?:decided|decision|we chose|chosen|instead of|rather than|deprecated|replaced by|superseded|recommended|prefer(?:red)?|in favou?r of|breaking change)\b/i

/** An id line; with `labelled-ids`, also a labelled id (`library ID: /x/y`). */
function isIdLine(line: string, recognizers: Recognizers): boolean {
  return ID_LINE.test(line) || (recognizers.on("labelled-ids") && LABELLED_ID.test(line))
}

const LABELLED_ID = /\b(?:ID|Id|id|key|Key)\s*:\s*\S/

/** An issue key (PLAT-1234), a UUID, a commit-like hash, a URL. */
const ID_LINE =
  /\b[A-Z][A-Z0-9]{1,9}-\d{1,6}\b|\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b|\b(?=[0-9a-f]*[a-f])(?=[0-9a-f]*\d)[0-9a-f]{7,40}\b|https?:\/\/\S+/

/** A table row whose cells are only words (`| parameter | required | description |`): column names, no fact. */
const TABLE_HEADER = /^\|(?:\s*[A-Za-z][A-Za-z /_-]*\s*\|)+\s*$/

/** A hit that carries the text it found: `path:12:text`, `path:12-text` or `12:text` (grep -n of one file). */
const CONTENT_HIT = /^(?:\S+?:)?\d+[:-]\s*\S/

/** A comment line of a source file and its text: `//`, `#`, `--`, `;`, `%`, a `/*`, `*` or `"""` line, `<!--`. */
const COMMENT = /^(?:\/\/+|#+(?!!)|--|;+|%+|\/\*+|\*+(?!\/)|"""|<!--)\s*(.*?)(?:\*\/|-->)?$/

/** A frame of a stack trace (`at run (src/a.js:4:2)`). */
const STACK_FRAME = /^\s*at\s/

/** A line that only reports an exit status. */
const EXIT_ONLY = /^(?:\(?(?:Command )?exit(?:ed)?(?: with)?(?: code| status)?:?\s*-?\d+\)?\.?|Exit code:? \d+)$/i

/** One passing test or file of a run (`✓ src/a.test.ts (6 tests)`): the summary line says it for all of them. */
const PASSING_ITEM = /^(?:[✓✔√]|ok\b|PASS\b)/

const RESULT_SUMMARY =
  /\b\d+\s+(?:passed|failed|failing|passing|skipped|pending|errors?|warnings?|tests?|problems?|files? changed|insertions?|deletions?)\b|^(?:Tests?|Test Suites|Test Files|Suites|Ran \d+ tests?|OK\b|FAILED\b|PASS\b|FAIL\b|BUILD (?:SUCCESS|FAILED)|Build (?:succeeded|failed)|Compiled|Finished|Done in)|exit(?:ed with)? code:? \d+/i
