/**
 * The lines of a document that state rules or limits, and a document as the model read it: what binds later work in
 * an attached file, a binding tool's output or a person's long message. Pure; never throws on any content.
 */
import type { Recognizers } from "../session/recognizers.js"
import { specConstraints } from "./output-facts.js"
import { plainText } from "./plain-text.js"

/**
 * How widely rule and limit lines are read. The core (rule words such as must, never, only; a limit word with its
 * value) was written blind; each widening is a rule of its own, tuned on the sessions that showed what the core missed.
 */
export type RuleReading = {
  /** `rule-words-wide`: cannot, can't, may not, no new and not permitted are rule words too. */
  wideWords: boolean
  /** `quantity-limits`: a number with a unit (30 days, 50 requests) states a limit without a limit word. */
  quantities: boolean
  /** `rule-sentences`: a long line is judged sentence by sentence, a long message's list item is kept whole. */
  sentences: boolean
}

/** Every widening on. */
export const WIDE_RULE_READING: RuleReading = { wideWords: true, quantities: true, sentences: true }

/** The widenings `recognizers` has on. */
export function ruleReading(recognizers: Recognizers): RuleReading {
  return { wideWords: recognizers.on("rule-words-wide"), quantities: recognizers.on("quantity-limits"), sentences: recognizers.on("rule-sentences") }
}

/**
 * The lines of a document that state rules or limits (`must`, `never`, `only`, `defaults to 30`, `at most 5`), in
 * order, verbatim (escape codes and line numbers stripped), at most `limit`: what binds later work. With `hardFirst`,
 * a document holding more of them than `limit` keeps its hard ones first (`isHardRule`), still in document order.
 */
export function ruleLines(
  text: string,
  limit: number,
  options: { listItems?: boolean; hardFirst?: boolean; reading?: RuleReading } = {},
): string[] {
  const reading = options.reading ?? WIDE_RULE_READING
  const found: string[] = []
  // Without `hardFirst` the scan stops at `limit`; with it, every candidate is gathered and the hard ones chosen.
  const cap = options.hardFirst === true ? Number.POSITIVE_INFINITY : limit
  for (const line of scanLines(text)) {
    // A list item of a person's long message is a point they make: kept whole, rule words or not.
    if (options.listItems === true && reading.sentences && LIST_ITEM.test(line) && line.length <= MAX_LIST_ITEM_CHARS) {
      if (found.length >= cap) break
      if (!found.includes(line) && line.replace(LIST_ITEM, "").length >= 12) found.push(line)
      continue
    }
    // A long line (a bullet that explains itself) is judged sentence by sentence, each kept whole.
    const longest = reading.sentences ? MAX_RULE_CHARS : MAX_WHOLE_RULE_CHARS
    const units = line.length <= longest ? [line] : reading.sentences ? line.split(/(?<=[.;!?])\s+(?=\S)/) : []
    for (const unit of units) {
      if (found.length >= cap) break
      if (unit.length < 12 || unit.length > longest || found.includes(unit) || /[{};]\s*$/.test(unit)) continue
      if (isRuleLine(unit, reading) || isLimit(unit, reading)) found.push(unit)
    }
  }
  return found.length <= limit ? found : hardOnesFirst(found, limit)
}

/**
 * A hard rule binds with a value: an obligation or prohibition (`must`, `never`, `cannot`, `required`) that states a
 * number (`must not exceed 250 MiB`, `must be at least 10 minutes`). Advice (`should`, `avoid`), a word like `only`,
 * a description (`exit codes do not change`) and a bare quantity (sample output, a size in a table) bind less.
 */
export function isHardRule(line: string): boolean {
  return HARD_RULE.test(line) && HAS_VALUE.test(line)
}

/** The first `limit` of `lines` with the hard ones taken first, in their original order. */
function hardOnesFirst(lines: readonly string[], limit: number): string[] {
  const hard = new Set(lines.filter(isHardRule).slice(0, limit))
  const rest = lines.filter((line) => !hard.has(line)).slice(0, limit - hard.size)
  const chosen = new Set([...hard, ...rest])
  return lines.filter((line) => chosen.has(line))
}

const HARD_RULE =
  /\b(?:must(?:n't| not)?|never|shall(?: not)?|required|mandatory|forbidden|not allowed|not permitted|prohibited|cannot|can't|may not)\b/i

/** A number: what makes a rule checkable (a size, a duration, a count). */
const HAS_VALUE = /\d/

/**
 * The constraints a document states (an attached file, a binding tool's output): the items under its rules headings
 * (`lists`), then up to `ruleLimit` of its rule and limit lines, a rule a list already gave not again with its bullet.
 */
export function documentConstraints(
  text: string,
  options: { lists: boolean; ruleLimit: number; hardFirst?: boolean; reading?: RuleReading },
): string[] {
  const listed = options.lists ? specConstraints(documentText(text)) : []
  if (options.ruleLimit === 0) return listed
  const rules = ruleLines(text, options.ruleLimit, { hardFirst: options.hardFirst === true, reading: options.reading }).filter((rule) => !listed.includes(rule.replace(/^[-*•]\s+/, "")))
  return [...listed, ...rules]
}

/** A rule line longer than this is judged sentence by sentence; a sentence longer than this is prose, not a rule. */
const MAX_RULE_CHARS = 400

/** Without `rule-sentences`, a line longer than this is prose, not a rule. */
const MAX_WHOLE_RULE_CHARS = 200

/** A list item of a person's message is kept whole up to this length (a bullet that explains its rule). */
const MAX_LIST_ITEM_CHARS = 640

/** `- item`, `* item`, `1. item`, also inside a quote (`> - item`). */
const LIST_ITEM = /^(?:>\s*)*(?:[-*•]|\d{1,2}[.)])\s+/

/** A limit or default with its value: a number (with a unit), a quoted value or a boolean. */
export function isLimit(line: string, reading: RuleReading = WIDE_RULE_READING): boolean {
  return (LIMIT_LINE.test(line) && /\d|\btrue\b|\bfalse\b|["'`]/.test(line)) || (reading.quantities && QUANTITY.test(line))
}

/** A line that states a rule (`must`, `never`, `only`; with `wideWords` also `cannot`, `may not`, `no new`). */
export function isRuleLine(line: string, reading: RuleReading = WIDE_RULE_READING): boolean {
  return RULE_LINE.test(line) || (reading.wideWords && WIDE_RULE_LINE.test(line))
}

/** A document as the model read it: escape codes stripped and read tools' line numbers removed from every line. */
export function documentText(text: string): string {
  return plainText(text)
    .split("\n")
    .map((line) => line.replace(READ_LINE_NUMBER, ""))
    .join("\n")
}

/** Output is scanned this far from its start and from its end: a 10 MB output costs what a 240k one does. */
const SCAN_HEAD_CHARS = 200_000
const SCAN_TAIL_CHARS = 20_000

/** The output's lines as the model read them, escape codes and line-number prefixes stripped, trimmed. */
export function scanLines(output: string): string[] {
  const bounded =
    output.length <= SCAN_HEAD_CHARS + SCAN_TAIL_CHARS ? output : `${output.slice(0, SCAN_HEAD_CHARS)}\n${output.slice(-SCAN_TAIL_CHARS)}`
  return plainText(bounded)
    .split("\n")
    .map((line) => line.replace(READ_LINE_NUMBER, "").trim())
}

/** `00012| `, `12: `, `    12\t` or `12→`: the line numbers read tools put before file lines. */
export const READ_LINE_NUMBER = /^\s*\d{1,6}(?:\| ?|: |\t|→)/

const RULE_LINE =
  /\b(?:must(?:n't| not)?|never|always|shall(?: not)?|should(?:n't| not)?|do not|don't|required|requires?|mandatory|only|forbidden|not allowed|prohibited|avoid|ensure|make sure)\b/i

const WIDE_RULE_LINE = /\b(?:not permitted|cannot|can't|may not|no new)\b/i

/** A number with a unit of time, size, rate or count: what a limit, a default or a quota is stated in. */
const QUANTITY =
  /\b\d[\d,.]*\s*(?:ms|s|sec(?:ond)?s?|min(?:ute)?s?|h|hours?|days?|weeks?|months?|years?|[KMGT]i?B|bytes?|%|requests?|req|calls?|characters?|chars|tokens?|items?|rows?|retries|attempts?|segments?|connections?|per\s+\w+)\b/

const LIMIT_LINE =
  /\b(?:defaults?(?: to| is)?|limit(?:s|ed)?|max(?:imum)?|min(?:imum)?|at most|at least|up to|no more than|timeout|ttl|expire[sd]?|quota|rate[- ]limit(?:ed)?|retr(?:y|ies)|per (?:second|minute|hour|day|request|user|page)|capped)\b/i

