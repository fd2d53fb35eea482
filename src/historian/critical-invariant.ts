import type { CanonicalRecord } from "./canonical-record.js"
import { isDirective, splitSentences } from "./extract-patterns.js"
import { shortenText } from "./shorten-text.js"

/** The longest invariant an anchor (and the dense and compact tiers) carries. */
export const INVARIANT_CHARS = 100

/**
 * The episode's critical invariant: the first directive sentence ("do not change the public API …") of its first
 * constraint that has one, else its first constraint from its first sentence of a few words (skipping a pasted
 * screenshot path), shortened to INVARIANT_CHARS; null without constraints.
 */
export function criticalInvariant(record: CanonicalRecord): string | null {
  const constraints = record.facts.filter((fact) => fact.kind === "constraint")
  for (const constraint of constraints) {
    const directive = splitSentences(constraint.text).find((sentence) => isDirective(sentence))
    if (directive !== undefined) return shortenText(directive, INVARIANT_CHARS)
  }
  const first = constraints[0]
  if (first === undefined) return null
  const sentences = splitSentences(first.text)
  const start = sentences.findIndex(isProse)
  return shortenText(start <= 0 ? first.text : sentences.slice(start).join(" "), INVARIANT_CHARS)
}

/** Three or more plain words: something a person wrote, not a pasted path or value. */
function isProse(sentence: string): boolean {
  return sentence.split(/\s+/).filter((word) => /^[A-Za-z][a-z']*[,.!?]*$/.test(word)).length >= 3
}
