import {
  classifyAssistantSentence,
  hasProblem,
  hasReason,
  splitSentences,
  type SentenceKind,
} from "./extract-patterns.js"
import { ALL_RECOGNIZERS, type Recognizers } from "../session/recognizers.js"
import type { SourceRef } from "./fact-collector.js"

/** One assistant text (or reasoning) part as sentence material. */
export type SentenceSource = {
  text: string
  ref: SourceRef
  /** The episode's last assistant text: only there do "next step" sentences count as open work. */
  isLastText: boolean
}

/** A decision, rejected alternative or open-work item, with the sources of every sentence it joins. */
export type SentenceFact = { kind: SentenceKind; text: string; refs: SourceRef[] }

/**
 * Turns a run of assistant text into facts. A decision or rejection without its own reason takes the next
 * sentence when that one gives a reason, or else the previous one when it states the problem; a rejection followed
 * by a decision becomes one rejected alternative naming its replacement. Sentences not used are narrative.
 */
export function sentenceFacts(
  sources: readonly SentenceSource[],
  recognizers: Recognizers = ALL_RECOGNIZERS,
): { facts: SentenceFact[]; narrative: string[] } {
  const reasons = (sentence: string): boolean => hasReason(sentence) || (recognizers.on("so-reason") && SO_REASON.test(sentence))
  const units = sources.flatMap((source) =>
    splitSentences(source.text).map((text) => ({ text, ref: source.ref, isLastText: source.isLastText })),
  )
  const kinds = units.map((unit) => kindOf(unit.text, unit.isLastText))
  const used = new Set<number>()
  const facts: SentenceFact[] = []
  units.forEach((unit, index) => {
    const kind = kinds[index]
    if (kind === null || kind === undefined || used.has(index)) return
    const joined = joinContext(index, kind, { units, kinds, used, reasons })
    joined.forEach((position) => used.add(position))
    facts.push({
      kind,
      text: joined.map((position) => units[position]?.text ?? "").join(" "),
      refs: joined.map((position) => units[position]?.ref ?? unit.ref),
    })
  })
  const narrative = units.filter((_, index) => !used.has(index)).map((unit) => unit.text)
  return { facts, narrative: [...new Set(narrative)] }
}

type Context = {
  units: readonly { text: string }[]
  kinds: readonly (SentenceKind | null)[]
  used: ReadonlySet<number>
  reasons: (sentence: string) => boolean
}

/** `A, so B`: B follows from A, so the sentence argues for the decision before it. */
const SO_REASON = /,\s+so\s+(?:the|every|we|it|that|this|there|each|all|any|nothing|no)\b/i

function kindOf(sentence: string, isLastText: boolean): SentenceKind | null {
  return classifyAssistantSentence(sentence, { openWork: isLastText })
}

/** The positions (ascending) of the sentence at `index` and the neighbour that completes it, if any. */
function joinContext(index: number, kind: SentenceKind, context: Context): number[] {
  const { units, kinds, used, reasons } = context
  const text = units[index]?.text ?? ""
  const next = units[index + 1]?.text
  const previous = units[index - 1]?.text
  const isFree = (position: number): boolean => kinds[position] === null && !used.has(position)
  if (kind === "rejected_alternative" && kinds[index + 1] === "decision") return [index, index + 1]
  if (kind === "open_work" || reasons(text)) return [index]
  if (next !== undefined && isFree(index + 1) && reasons(next)) return [index, index + 1]
  if (previous !== undefined && isFree(index - 1) && hasProblem(previous)) return [index - 1, index]
  return [index]
}
