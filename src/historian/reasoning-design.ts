import { isQuestionOrConditional, splitSentences } from "./extract-patterns.js"
import { extractIdentifiers } from "./extract-identifiers.js"
import { isPlanSentence, REASONING_MARK } from "./reasoning-plans.js"
import type { SentenceFact, SentenceSource } from "./sentence-facts.js"
import { shortenText } from "./shorten-text.js"
import type { ToolCallReading } from "./read-tool-call.js"

/**
 * One tool call of an episode as text: what an edit or a write added and what it replaced, or the whole command line
 * a shell ran (heredocs included); both empty for a read-only call. `output`: what the call returned. `after`: how
 * many reasoning parts of the episode came before the call.
 */
export type CallText = { added: string; removed: string; output: string; after: number }

/** What follows the mark on a design (`reasoningDesigns`). */
export const DESIGN_LABEL = /^design: /

/** An episode keeps at most this many designs from its reasoning, those whose names the work uses most. */
export const MAX_REASONING_DESIGNS = 2

/** A design sentence is shortened to about this length (never through an identifier). */
export const MAX_DESIGN_CHARS = 300

/** A sentence is a design only when at least this many of its code names recur in the work after it. */
const MIN_RECURRING_NAMES = 2

/**
 * Designs the agent works out only in its reasoning (rule `reasoning-design`): a sentence whose code names (snake_case,
 * camelCase, dotted names, paths, calls, backticked names) recur in the edits, writes and commands the episode makes
 * after it, one of them code-shaped and one new there (added, not in the text an edit replaced, nor in anything the
 * episode's calls returned or wrote before the sentence), is the design the work carries out: a table's unique key, a
 * lock built from a row, a function's contract. The best `MAX_REASONING_DESIGNS` by recurring names (the later of
 * equals: an earlier one is often revised), in the order said, each a decision marked as reasoning. `taken` says which
 * sentences other rules already keep (decisions, plans, a sentence the answer says itself).
 */
export function reasoningDesigns(options: {
  reasoning: readonly SentenceSource[]
  calls: readonly CallText[]
  taken: (sentence: string) => boolean
}): SentenceFact[] {
  const candidates: { at: number; score: number; sentence: string; source: SentenceSource }[] = []
  const seen = new Set<string>()
  options.reasoning.forEach((source, index) => {
    const work = options.calls.filter((call) => call.after > index && call.added !== "")
    if (work.length === 0) return
    const known = options.calls.filter((call) => call.after <= index).flatMap((call) => [call.added, call.output])
    for (const sentence of splitSentences(source.text)) {
      if (seen.has(sentence) || options.taken(sentence) || isQuestionOrConditional(sentence) || isPlanSentence(sentence) || ANNOUNCED_CALL.test(sentence)) continue
      seen.add(sentence)
      const score = designScore(sentence, { work, known })
      if (score > 0) candidates.push({ at: candidates.length, score, sentence, source })
    }
  })
  return candidates
    .sort((left, right) => right.score - left.score || right.at - left.at)
    .slice(0, MAX_REASONING_DESIGNS)
    .sort((left, right) => left.at - right.at)
    .map((candidate) => ({
      kind: "decision",
      text: `${REASONING_MARK}design: ${shortenText(candidate.sentence, MAX_DESIGN_CHARS)}`,
      refs: [candidate.source.ref],
    }))
}

/** What a tool call adds to the work: an edit's texts, a command that is not read-only (or writes a file), else none. */
export function workOf(input: Record<string, unknown>, reading: ToolCallReading): { added: string; removed: string } {
  if (reading.edit !== null) return { added: reading.edit.newText, removed: reading.edit.oldText }
  if (reading.command === null) return NO_WORK
  const full = [input["command"], input["cmd"]].find((value): value is string => typeof value === "string") ?? reading.command
  return reading.isSearch && !WRITES_FILE.test(full) ? NO_WORK : { added: full, removed: "" }
}

const NO_WORK = { added: "", removed: "" }

/**
 * How many of the sentence's code names the work uses, those new in it counted twice; 0 unless at least
 * MIN_RECURRING_NAMES recur, one code-shaped (not a plain backticked word) and one new: added by the work, not in
 * the text an edit replaced nor in what the episode knew before (`known`: earlier calls' outputs and writes).
 */
export function designScore(
  sentence: string,
  context: { work: readonly { added: string; removed: string }[]; known: readonly string[] },
): number {
  const recurring = codeNames(sentence).filter((name) => context.work.some((call) => containsName(call.added, name.text)))
  const introduced = recurring.filter(
    (name) =>
      context.work.some((call) => containsName(call.added, name.text) && !containsName(call.removed, name.text)) &&
      !context.known.some((text) => containsName(text, name.text)),
  )
  if (recurring.length < MIN_RECURRING_NAMES || introduced.length === 0 || !recurring.some((name) => name.shaped)) return 0
  return recurring.length + introduced.length
}

/** A name as code spells it, and whether its shape alone says it is code (snake_case, camelCase, dotted, a path, a call). */
type CodeName = { text: string; shaped: boolean }

/** The code names of a prose sentence, each once: its identifiers, the words of backticked code, called names. */
export function codeNames(sentence: string): CodeName[] {
  const names = new Map<string, boolean>()
  const add = (text: string, shaped: boolean): void => {
    if (text.length < MIN_NAME_CHARS) return
    names.set(text, (names.get(text) ?? false) || shaped)
  }
  for (const identifier of extractIdentifiers(sentence, "prose")) {
    if (!/[\s(),]/.test(identifier)) add(identifier, isCodeShaped(identifier))
    // A backticked expression or column list (`unique (appointment_id, kind)`): each of its words is a name.
    else for (const word of identifier.match(WORD) ?? []) add(word, isCodeShaped(word))
  }
  for (const call of sentence.matchAll(CALL)) add(call[1] ?? "", true)
  return [...names].map(([text, shaped]) => ({ text, shaped }))
}

/** True when `text` holds `name` as a whole token (no word character on either side). */
function containsName(text: string, name: string): boolean {
  for (let at = text.indexOf(name); at >= 0; at = text.indexOf(name, at + 1)) {
    if (!NAME_CHAR.test(text[at - 1] ?? " ") && !NAME_CHAR.test(text[at + name.length] ?? " ")) return true
  }
  return false
}

function isCodeShaped(name: string): boolean {
  return /[A-Za-z]/.test(name) && (/\w_\w|^_\w/.test(name) || /[a-z][A-Z]/.test(name) || /\w[./]\w/.test(name))
}

/** Shorter names (`id`, `db`) recur anywhere. */
const MIN_NAME_CHARS = 3

const NAME_CHAR = /[\w$]/
const WORD = /[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)*/g

/** A called name in prose: `claim(id)`, `withLock()`; not a plural's "(s)". */
const CALL = /(?<![\w$.])([A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)*)\((?!e?s\))(?=[\w\s,'"`$.)]*\))/g

/** A command that writes a file though its program reads (`cat > path <<EOF`, `echo … >> path`, `tee`). */
const WRITES_FILE = /(?:^|[^<>&\d])>{1,2}\s*[^\s&>]|\btee\b/

/** A sentence announcing the next call ("Let me run `mix compile` …"): its names recur in that call, no design. */
const ANNOUNCED_CALL =
  /^(?:(?:now|next|first|ok(?:ay)?|so),?\s+)?(?:let me|let's|i'll|i will|i'm going to|i need to)\s+(?:run|rerun|re-run|execute|try|call|invoke|install|build|compile|start|restart|open|read|view)\b/i
