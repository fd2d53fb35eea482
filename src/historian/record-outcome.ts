import { isFiller, splitSentences } from "./extract-patterns.js"
import type { SourceRef } from "./fact-collector.js"
import { shortenText } from "./shorten-text.js"

/** What happened in an episode, in order: user texts, assistant texts, and tool calls (with their failure). */
export type EpisodeEvent =
  | { type: "user"; text: string; trivial: boolean; ref: SourceRef }
  | { type: "text"; text: string }
  | { type: "tool"; failure: string | null }

/** The longest outcome kept. */
export const OUTCOME_CHARS = 240

/**
 * The episode's outcome: `failed: <failure>` when its last assistant step is a failed tool call, else the first
 * informative sentence(s) of its last assistant text that has one (skipping "Perfect!", "Let me …" and short list
 * intros such as "Changes made:"), else the last text's first sentence, else null (the assistant said nothing).
 */
export function outcomeOf(events: readonly EpisodeEvent[]): string | null {
  const assistantSteps = events.filter((event) => event.type !== "user")
  const last = assistantSteps.at(-1)
  if (last?.type === "tool" && last.failure !== null) return shortenText(`failed: ${last.failure}`, OUTCOME_CHARS)
  const texts = assistantSteps.flatMap((event) => (event.type === "text" ? [event.text] : [])).reverse()
  for (const text of texts) {
    const informative = splitSentences(text).filter(isInformative)
    if (informative.length > 0) return joinOutcome(informative)
  }
  const fallback = texts[0] === undefined ? [] : splitSentences(texts[0])
  return fallback.length > 0 ? joinOutcome(fallback) : null
}

/** The first sentence, with the next one when the first is short and the next is not a heading. */
function joinOutcome(sentences: readonly string[]): string {
  const [first = "", second] = sentences
  const joinSecond = first.length < 80 && second !== undefined && second.split(/\s+/).length > 3
  return shortenText(joinSecond ? `${first} ${second}` : first, OUTCOME_CHARS)
}

/** Not filler ("Perfect!"), not an intro, and more than an exclamation ("WHAT.") unless it names something. */
function isInformative(sentence: string): boolean {
  if (isFiller(sentence) || isIntro(sentence)) return false
  return sentence.split(/\s+/).length >= 3 || /[`\/#.]\S/.test(sentence)
}

/** "Let me …", "Here's …" and short list intros ("**Changes made:**") announce rather than report. */
function isIntro(sentence: string): boolean {
  const bare = sentence.replace(/[*_]+$/, "")
  if (bare.endsWith(":") && bare.split(/\s+/).length <= 6) return true
  return /^(?:now,?\s+)?(?:let me|let's|let us|i'll|i will|next,?|here's|here is)\b/i.test(sentence)
}
