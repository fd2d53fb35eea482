import { classifyAssistantSentence, isQuestionOrConditional, splitSentences, stripFencedCode } from "./extract-patterns.js"
import type { SentenceFact, SentenceSource } from "./sentence-facts.js"

/** How a fact taken from a reasoning part begins: the record says where the agent said it. */
export const REASONING_MARK = "(reasoning) "

/** What follows the mark on a plan (`reasoningPlans`), before its steps. */
export const PLAN_LABEL = /^plan: /

/**
 * Plans the agent states only in its reasoning (rule `reasoning-plans`): first-person intent laid out in order ("I'll
 * add the column first, then backfill it, and only then switch the reader"), or a sentence that announces a plan
 * ("The plan: …") with the steps that follow it on their own lines. The work that follows carries the plan out, and
 * the answer does not repeat it. Taken only when no assistant text of the episode states a plan itself; the last
 * `MAX_REASONING_PLANS`, each as a decision marked as reasoning. Sentences the decision patterns classify are left to
 * them (`sentenceFacts` takes those from reasoning too).
 */
export function reasoningPlans(reasoning: readonly SentenceSource[], texts: readonly SentenceSource[]): SentenceFact[] {
  if (texts.some((source) => splitSentences(source.text).some(isPlanSentence))) return []
  const plans: SentenceFact[] = []
  for (const source of reasoning) {
    const lines = stripFencedCode(source.text).split("\n")
    for (let index = 0; index < lines.length; index += 1) {
      const sentences = splitSentences(lines[index] ?? "")
      const start = sentences.findIndex(isPlanSentence)
      if (start < 0) continue
      const steps = sentences.slice(start)
      // The steps on the lines below: list items, or sentences that go on in order ("Then …", "Finally …").
      while (index + 1 < lines.length && isStepLine(lines[index + 1] ?? "")) {
        index += 1
        steps.push(...splitSentences(lines[index] ?? ""))
      }
      plans.push({ kind: "decision", text: `${REASONING_MARK}plan: ${bounded(steps)}`, refs: [source.ref] })
    }
  }
  return plans.slice(-MAX_REASONING_PLANS)
}

/** An episode keeps at most this many plans from its reasoning, the latest (an earlier one is often done or revised). */
export const MAX_REASONING_PLANS = 2

/** A plan's text is cut at a sentence once it is this long (its first sentence is always kept whole). */
const MAX_PLAN_CHARS = 480

/** True when a sentence announces a plan or lays out intended steps in order, and no other pattern took it. */
export function isPlanSentence(sentence: string): boolean {
  if (isQuestionOrConditional(sentence) || classifyAssistantSentence(sentence, { openWork: false }) !== null) return false
  return PLAN_OPENER.test(sentence) || (INTENT.test(sentence) && IN_ORDER.test(sentence))
}

function isStepLine(line: string): boolean {
  const trimmed = line.trim()
  return trimmed !== "" && (LIST_ITEM.test(trimmed) || STEP_START.test(trimmed))
}

function bounded(sentences: readonly string[]): string {
  let text = sentences[0] ?? ""
  for (const sentence of sentences.slice(1)) {
    if (text.length + 1 + sentence.length > MAX_PLAN_CHARS) break
    text = `${text} ${sentence}`
  }
  return text
}

/** "Plan: …", "The plan here — …", "Here's my plan", "Steps: …". */
const PLAN_OPENER = /^(?:(?:ok(?:ay)?|so|alright|right)[,.]?\s+)?(?:(?:here's|here is)\s+)?(?:(?:the|my)\s+)?(?:plan|steps)(?:\s+(?:here|for now|then))?\s*(?::|—|–|-\s)/i

/** First-person intent. */
const INTENT = /\b(?:i'll|i will|i'm going to|i am going to|we'll|we will|let me|let's|i need to|we need to|i want to|i plan to|i intend to)\b/i

/** Words that put steps in order. */
const IN_ORDER = /\b(?:first|then|after that|afterwards|finally|once (?:that|this|it|they)(?:'s| is| are)?(?: done| in| green| passing)?|before (?:i|we)\b)/i

/** A list item: `1.`, `2)`, `-`, `*`. */
const LIST_ITEM = /^(?:\d{1,2}[.)]|[-*•])\s+\S/

/** A sentence that goes on in order. */
const STEP_START = /^(?:then|next|after that|afterwards|finally|lastly|second|third|and then)\b/i
