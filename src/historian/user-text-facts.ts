import { isCorrection, isDirective, isHarnessNotice, isHeldAction, isTrivialUserText, splitSentences } from "./extract-patterns.js"
import type { FactKind } from "./fidelity-types.js"
import { ruleLines, type RuleReading } from "./document-rules.js"

/** A fact read from one authored user text (before it gets its sources). */
export type UserTextFact = { kind: FactKind; text: string }

/** A user message up to this length is a directive kept verbatim; a longer one is a paste (a log, a file). */
export const MAX_DIRECTIVE_CHARS = 1500

/** A long message (a plan handoff) pins at most this many of its rule lines besides its directive sentences. */
const MAX_LONG_MESSAGE_RULES = 32

/** A directive sentence found inside a paste is kept only up to this length. */
const MAX_DIRECTIVE_SENTENCE_CHARS = 500

/** How much of a paste or a notice its incidental fact quotes. */
const QUOTE_CHARS = 200

/**
 * Reads what a person wrote: the whole message as a constraint (PIN, verbatim) when it is up to
 * MAX_DIRECTIVE_CHARS; a longer paste as an incidental note of its first lines and length plus a constraint for
 * each directive sentence in it; corrections ("no, …", "i undid your changes") as rejected alternatives; harness
 * notices and bare slash commands or "continue" as incidental.
 */
export function userTextFacts(
  text: string,
  options: { longRules: boolean; heldActions?: boolean; reading?: RuleReading } = { longRules: true },
): UserTextFact[] {
  const trimmed = text.trim()
  if (trimmed === "") return []
  if (isHarnessNotice(trimmed)) return [{ kind: "incidental", text: `notice: ${quote(trimmed)}` }]
  if (isTrivialUserText(trimmed)) return [{ kind: "incidental", text: `user: ${trimmed}` }]
  const sentences = splitSentences(trimmed)
  const todos = sentences.filter((sentence) => /^TODO\b/.test(sentence)).map((sentence) => openWork(sentence))
  if (trimmed.length <= MAX_DIRECTIVE_CHARS) {
    return [{ kind: "constraint", text: trimmed }, ...corrections(trimmed, sentences), ...todos]
  }
  const directives = sentences
    .filter((sentence) => sentence.length <= MAX_DIRECTIVE_SENTENCE_CHARS && !looksLikeCode(sentence))
    .filter((sentence) => isDirective(sentence) || (options.heldActions !== false && isHeldAction(sentence)))
    .map((sentence): UserTextFact => ({ kind: "constraint", text: sentence }))
  const paste: UserTextFact = { kind: "incidental", text: `user pasted ${trimmed.length} chars: ${quote(trimmed)}` }
  const lines = options.longRules ? ruleLines(trimmed, MAX_LONG_MESSAGE_RULES, { listItems: true, reading: options.reading }) : []
  // Each thing said once: a whole line holds the sentence it contains, a sentence holds a line inside it.
  const kept = directives.filter((fact) => !lines.some((line) => line.includes(fact.text)))
  const rules = lines
    .filter((line) => !kept.some((fact) => fact.text.includes(line)))
    .map((line): UserTextFact => ({ kind: "constraint", text: line }))
  return [paste, ...kept, ...rules, ...corrections(trimmed, sentences), ...todos]
}

/** The start of `text`: its first two non-empty lines, cut to QUOTE_CHARS at a word boundary. */
export function quote(text: string, maxChars: number = QUOTE_CHARS): string {
  const lines = text
    .split("\n")
    .map((line) => line.trim())
    .filter((line) => line !== "")
    .slice(0, 2)
    .join(" | ")
  if (lines.length <= maxChars) return lines
  const cut = lines.lastIndexOf(" ", maxChars)
  return `${lines.slice(0, cut > maxChars / 2 ? cut : maxChars)}…`
}

/** A listing line (`1463: msg = …`), a reST directive (`note::`) or code punctuation: not something a person said. */
function looksLikeCode(sentence: string): boolean {
  return /^\d+:|::$|[{};]|'\s*[,.+)]|^["'(]/.test(sentence)
}

function corrections(text: string, sentences: readonly string[]): UserTextFact[] {
  const hits = sentences
    .map((sentence, index) => ({ sentence, index }))
    .filter(({ sentence }) => isCorrection(sentence))
  if (hits.length === 0) return []
  if (text.length <= 300) return [{ kind: "rejected_alternative", text: `user: ${text}` }]
  return hits.map(({ index }) => ({
    kind: "rejected_alternative",
    text: `user: ${sentences.slice(index, index + 2).join(" ")}`,
  }))
}

function openWork(sentence: string): UserTextFact {
  return { kind: "open_work", text: `user: ${sentence}` }
}
