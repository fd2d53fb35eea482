import type { TokenCounter } from "./token-counter.js"

/**
 * Counts a long text that is mostly the same from call to call (the composed history: one section per episode) as
 * the sum of its sections' counts, counting only sections it has not seen in the previous call.
 *
 * Exact, not an estimate: a section ends at a blank line whose next character is neither whitespace nor `/`, and
 * there tiktoken's pre-tokenizer always starts a new piece (in o200k_base and cl100k_base a newline is followed
 * within a piece only by whitespace, or by `/` in o200k's punctuation piece), and BPE never merges across pieces. So
 * the sum equals counting the whole text; the word counter of the tests splits at whitespace and adds up the same
 * way. (One difference: a text so long that the encoder refuses it whole, about 1 MB, is counted in sections instead
 * of falling back to characters / 4.)
 */
export type SectionCounter = { count(text: string): number }

export function createSectionCounter(counter: TokenCounter): SectionCounter {
  // The sections of the previous call and their counts: anything older is forgotten, so memory follows one text.
  let known = new Map<string, number>()
  return {
    count(text) {
      const seen = new Map<string, number>()
      let total = 0
      for (const section of sections(text)) {
        const tokens = seen.get(section) ?? known.get(section) ?? counter.count(section)
        seen.set(section, tokens)
        total += tokens
      }
      known = seen
      return total
    },
  }
}

/** `text` cut after each blank line that a character other than whitespace or `/` follows. */
export function sections(text: string): string[] {
  const result: string[] = []
  let from = 0
  let at = text.indexOf("\n\n")
  while (at !== -1) {
    let end = at + 2
    while (text[end] === "\n") end += 1
    const next = text[end]
    if (next !== undefined && next !== "/" && !/\s/.test(next)) {
      result.push(text.slice(from, end))
      from = end
    }
    at = text.indexOf("\n\n", end)
  }
  if (from < text.length) result.push(text.slice(from))
  return result
}
