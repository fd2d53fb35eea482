import {
  classifyAssistantSentence,
  hasProblem,
  hasReason,
  isQuestionOrConditional,
  SO_CONSEQUENCE,
  splitSentences,
  type SentenceKind,
} from "./extract-patterns.js"
import { ALL_RECOGNIZERS, type Recognizers } from "../session/recognizers.js"
import type { SourceRef } from "./fact-collector.js"
import { extractLocations } from "./extract-locations.js"

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
 * by a decision becomes one rejected alternative naming its replacement. Then, from the sentences left, weaker
 * evidence (named rules): a defect placed at a file and line is a finding, a statement with its own reason a decision.
 * Sentences not used are narrative.
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
  const found: { at: number; fact: SentenceFact }[] = []
  units.forEach((unit, index) => {
    const kind = kinds[index]
    if (kind === null || kind === undefined || used.has(index)) return
    const joined = joinContext(index, kind, { units, kinds, used, reasons })
    joined.forEach((position) => used.add(position))
    found.push({
      at: joined[0] ?? index,
      fact: {
        kind,
        text: joined.map((position) => units[position]?.text ?? "").join(" "),
        refs: joined.map((position) => units[position]?.ref ?? unit.ref),
      },
    })
  })
  // Weaker evidence, read only from what the sentences above left: a bug's place, a statement with its own reason.
  units.forEach((unit, index) => {
    if (used.has(index) || kinds[index] !== null) return
    const kind = weakKind(unit.text, { recognizers, reasons })
    if (kind === null) return
    used.add(index)
    found.push({ at: index, fact: { kind, text: unit.text, refs: [unit.ref] } })
  })
  const facts = found.sort((left, right) => left.at - right.at).map((entry) => entry.fact)
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
const SO_REASON = new RegExp(`,\\s+${SO_CONSEQUENCE}`, "i")

/** The kind of a sentence no pattern above classified, from weaker evidence (named rules), or null. */
function weakKind(sentence: string, context: { recognizers: Recognizers; reasons: (sentence: string) => boolean }): SentenceKind | null {
  if (context.recognizers.on("located-findings") && isLocatedFinding(sentence)) return "failure"
  if (context.recognizers.on("declined-approaches") && isDeclined(sentence)) return "rejected_alternative"
  if (context.recognizers.on("conceded-alternatives") && isConceded(sentence)) return "rejected_alternative"
  if (context.recognizers.on("announced-findings") && isAnnouncedFinding(sentence)) return "failure"
  if (context.recognizers.on("stated-trade-offs") && isTradeOff(sentence)) return "decision"
  if (context.recognizers.on("reasoned-sentences") && isReasoned(sentence, context.reasons)) return "decision"
  return null
}

/**
 * A statement that gives its own reason ("… because every segment is billed", "…, so the hold and the offer commit
 * together") records why the work is as it is: a decision with its rationale, though no choice verb names it.
 */
function isReasoned(sentence: string, reasons: (sentence: string) => boolean): boolean {
  return sentence.length >= MIN_REASONED_CHARS && !isQuestionOrConditional(sentence) && reasons(sentence)
}

/**
 * A statement that points at a file and line while naming a defect ("`parse` drops the last header when the body is
 * empty (src/headers.ts:118), a bug since 2.3") says where a bug is: a finding, kept with its place.
 */
function isLocatedFinding(sentence: string): boolean {
  return !isQuestionOrConditional(sentence) && (hasProblem(sentence) || DEFECT.test(sentence)) && extractLocations(sentence).length > 0
}

/**
 * A statement that the agent will not lean on something ("…, so I don't want to rely on the scheduler", "I'd rather
 * not add a second queue") turns an approach down, though no rejection verb names it: a rejected alternative.
 */
function isDeclined(sentence: string): boolean {
  return !isQuestionOrConditional(sentence) && DECLINED.test(sentence)
}

const DECLINED =
  /\b(?:i|we) (?:don't|do not|wouldn't|would not) (?:want|like) to (?:rely|depend|lean|build) on\b|\b(?:i'd|i would|we'd|we would) rather not\b|\bbetter not to (?:rely|depend) on\b/i

/**
 * A sentence that grants an option its merit and turns it down in the same breath ("A read replica would help the
 * reports, but nobody here runs Postgres replication", "Redis would be faster, but it can't join the transaction")
 * weighs an alternative and rejects it for the reason after "but".
 */
function isConceded(sentence: string): boolean {
  return !isQuestionOrConditional(sentence) && CONCEDED.test(sentence)
}

const CONCEDED =
  /\b(?:would|could|might)\s+(?:(?:probably|certainly|also|still|arguably)\s+)?(?:help|work|beat|save|simplify|be (?:better|faster|simpler|cleaner|easier|nicer|cheaper|more \w+))\b[^.;?]{0,160}?,\s*but\b/i

/**
 * A sentence that announces a discovery and then states it after a colon ("That's it: the duplicate invoices came
 * from the retry of a timed-out POST", "Found it: the cache key omits the tenant") says what the cause turned out to
 * be.
 */
function isAnnouncedFinding(sentence: string): boolean {
  const announced = ANNOUNCED_FINDING.exec(sentence.trim())
  // A wrap-up ("That's it: nothing else to change") closes the work and names no cause.
  return announced?.[1] !== undefined && !WRAP_UP.test(announced[1])
}

const WRAP_UP = /^(?:nothing|no (?:more|other|further)|all (?:done|good|set)|done|everything|we're done|that's all)\b/i

const ANNOUNCED_FINDING =
  /^(?:that's it|that is it|that's the (?:bug|culprit|cause|problem)|found it|found the (?:bug|culprit|cause|problem)|there it is|there's the (?:bug|culprit|cause|problem)|bingo)\s*[:—–]\s*(\S.{15,})/i

/**
 * A sentence that names what a decision costs and then states it after a colon ("The downside is a slower cold start:
 * the index is rebuilt on boot", "The trade-off: reads may lag the primary by a second") is part of the decision's
 * rationale: the consequence it accepted.
 */
function isTradeOff(sentence: string): boolean {
  return !isQuestionOrConditional(sentence) && TRADE_OFF.test(sentence.trim())
}

const TRADE_OFF =
  /^(?:the |one |the one |the only |a )?(?:flip side|other side of (?:that|this|the coin)|trade-?off|downside|catch|caveat|drawback|price)\b[^:.?]{0,80}:\s*\S.{15,}/i

/** Words that name a defect besides the problem words (`fails`, `missing`, `doesn't`). */
const DEFECT = /\b(?:fix(?:es|ed)?|bug(?:gy|s)?|wrong(?:ly)?|incorrect(?:ly)?|drops?|ignores?|loses?|leaks?)\b/i

/** Shorter than this, a sentence with "because" is a fragment ("Because of that.") rather than a decision. */
const MIN_REASONED_CHARS = 40

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
