/**
 * Sentence-level recognisers of the canonical record: sentence splitting, and the cue patterns that mark a
 * decision, a rejected alternative, open work, a user directive or correction, a reason and a problem. Pure
 * functions over strings; they judge one sentence at a time (joining with neighbours happens in sentence-facts.ts).
 */

/** What an assistant sentence records, if anything. */
export type SentenceKind = "decision" | "rejected_alternative" | "open_work" | "failure"

/** Splits text into sentences: fenced code is dropped, each line is a unit, list and heading markers are removed. */
export function splitSentences(text: string): string[] {
  const sentences: string[] = []
  for (const rawLine of stripFencedCode(text).split("\n")) {
    const line = rawLine.replace(LINE_MARKER, "").trim()
    if (line === "") continue
    sentences.push(...splitLine(line))
  }
  return sentences
}

/**
 * Classifies an assistant sentence; a question or a conditional records nothing. With `openWork: false` only a
 * sentence starting with "TODO" counts as open work ("next step" mid-episode is usually done by its end).
 */
export function classifyAssistantSentence(sentence: string, options: { openWork?: boolean } = {}): SentenceKind | null {
  if (isQuestionOrConditional(sentence)) return null
  if (REJECTION.some((pattern) => pattern.test(sentence))) return "rejected_alternative"
  if (/^TODO\b/.test(sentence)) return "open_work"
  if (options.openWork !== false && OPEN_WORK.some((pattern) => pattern.test(sentence))) return "open_work"
  if (DECISION.some((pattern) => pattern.test(sentence))) return "decision"
  if (isFinding(sentence)) return "failure"
  return null
}

/**
 * A finding about a bug (its status or cause), stated as fact: "that's why …", "turns out …", "found the issue …",
 * or an exclaimed problem with a code name ("The `Text` component doesn't implement `invalidate()`!").
 */
function isFinding(sentence: string): boolean {
  if (FINDING.some((pattern) => pattern.test(sentence))) return true
  const trimmed = sentence.trim()
  return trimmed.endsWith("!") && /`[^`]+`/.test(trimmed) && PROBLEM.test(trimmed)
}

/** True when the sentence gives a reason (`because`, `since`, `so that`, `due to`, `, as …`). */
export function hasReason(sentence: string): boolean {
  return REASON.test(sentence)
}

/** True when the sentence states a problem a following decision answers (`can't`, `doesn't`, `missing`, `fails`). */
export function hasProblem(sentence: string): boolean {
  return PROBLEM.test(sentence)
}

/** True when a user sentence is a directive (`do not`, `never`, `must`, `always`, `only`, `keep`, `use X instead`). */
export function isDirective(sentence: string): boolean {
  if (sentence.trim().endsWith("?")) return false
  return DIRECTIVE.some((pattern) => pattern.test(sentence))
}

/**
 * True when a user sentence holds an action back until they say so (`held-actions`): "make no change to the
 * repository until I confirm", "wait for my go before you push", "leave the schema untouched". Worded without a rule
 * word, it binds like `never`.
 */
export function isHeldAction(sentence: string): boolean {
  if (sentence.trim().endsWith("?")) return false
  return HELD_ACTION.some((pattern) => pattern.test(sentence))
}

/** True when a user sentence corrects the agent (`no,`, `undo that`, `i undid your changes`, `that's wrong`). */
export function isCorrection(sentence: string): boolean {
  return CORRECTION.some((pattern) => pattern.test(sentence))
}

/** True when user-role text is a harness notice (task notification, interruption, continuation summary). */
export function isHarnessNotice(text: string): boolean {
  return HARNESS_NOTICE.some((pattern) => pattern.test(text))
}

/** True when a user message carries no directive: a bare slash command or a continuation word. */
export function isTrivialUserText(text: string): boolean {
  const trimmed = text.trim()
  return /^\/\S*$/.test(trimmed) || TRIVIAL_WORDS.test(trimmed)
}

/** True for filler an outcome should skip ("Perfect!", "Done.", "Great!"). */
export function isFiller(sentence: string): boolean {
  return FILLER.test(sentence.trim())
}

const LINE_MARKER = /^\s*(?:#{1,6}\s+|>\s*|[-*+]\s+(?:\[[ xX]\]\s+)?|\d+[.)]\s+)*/
const ABBREVIATION = /(?:\b(?:e\.g|i\.e|etc|vs|cf|approx|incl|resp|no|fig|Mr|Mrs|Dr|St)|\b[A-Za-z])\.$/i

/** The words after "so" that make it a consequence ("…, so the hold commits", "…, so a crash loses the entry"). */
export const SO_CONSEQUENCE = "so (?:the|a|an|we|it|that|this|there|every|each|all|any|nothing|no)\\b"

/** A list number, bold or not, at the start of a sentence (`**2. Tide windows.**`): it numbers the sentence, not ends it. */
const ENUMERATOR = /^\s*[*_]{0,2}\d{1,3}\.$/

/** The text with fenced code blocks (```…```) replaced by blank lines. */
export function stripFencedCode(text: string): string {
  return text.replace(/```[\s\S]*?(?:```|$)/g, "\n")
}

/** Splits one line at `.`, `!` or `?` followed by whitespace, never inside backticks or after an abbreviation. */
function splitLine(line: string): string[] {
  const sentences: string[] = []
  let start = 0
  let inBackticks = false
  for (let index = 0; index < line.length; index += 1) {
    const character = line[index]
    if (character === "`") inBackticks = !inBackticks
    if (inBackticks || (character !== "." && character !== "!" && character !== "?")) continue
    const next = line[index + 1]
    if (next !== " " && next !== "\t") continue
    const candidate = line.slice(start, index + 1)
    if (character === "." && (ABBREVIATION.test(candidate) || ENUMERATOR.test(candidate))) continue
    sentences.push(candidate.trim())
    start = index + 1
  }
  const rest = line.slice(start).trim()
  if (rest !== "") sentences.push(rest)
  return sentences.filter((sentence) => /[A-Za-z0-9]/.test(sentence))
}

/** A question, a conditional, or a look-around ("Let me check if the issue is …") decides nothing. */
export function isQuestionOrConditional(sentence: string): boolean {
  const trimmed = sentence.trim()
  if (trimmed.endsWith("?")) return true
  return TENTATIVE.test(trimmed)
}

const TENTATIVE = new RegExp(
  "^(?:if|whether|should i|shall i|do you want|would you like)\\b" +
    "|^(?:now,?\\s+)?(?:let me|let's|i'll|i will)\\s+(?:(?:first|quickly|also|just|now)\\s+)?" +
    "(?:check|see|verify|look|find|investigate|search|examine|explore|understand|inspect|review|get a sense|take a look)\\b",
  "i",
)

const CHOICE_VERB = "use|go with|switch to|stick with|keep|rewrite|replace|adopt|choose|pick|opt for|revert to"
const NEEDED_CHANGE = "use|rewrite|switch|replace|import|modify|change|convert|move|restore"

const DECISION: readonly RegExp[] = [
  new RegExp(`\\b(?:i'll|i will|i'm going to|we'll|we will|let's|let us|i'd|we'd)\\s+(?:${CHOICE_VERB})\\b`, "i"),
  /\b(?:i|we)\s+(?:decided|chose|opted|picked|settled on)\b/i,
  /\bdecided to\b/i,
  /\bthe (?:fix|solution|right approach|approach|plan|workaround) (?:is|was|will be|here is)\b/i,
  /\bbest (?:solution|approach|option|fix)\b/i,
  /\b(?:i|we) should\b/i,
  new RegExp(`\\b(?:i|we) (?:need|have) to (?:also |first |now |instead )?(?:${NEEDED_CHANGE})\\b`, "i"),
  /\bswitch(?:ing|ed)? to\b/i,
  // A setting with its purpose: "set to 1 to disable contrast adjustment".
  /\bset (?:it |this |that |`[^`]+` )?to [`"']?[\w.#-]+[`"']? (?:to|so that|in order to) \w+/i,
  /\b(?:root cause|real cause|underlying cause)\b(?: here)?(?:\s+(?:is|was)\b|\s*:)/i,
  /\b(?:issue|problem|bug|culprit) (?:here )?(?:is|was) (?:that|in|with|caused|because)\b/i,
]

const FINDING: readonly RegExp[] = [
  /\b(?:that's|that is|this is|which is|which explains|that explains|this explains) why\b/i,
  /\b(?:found|spotted|identified|located) the (?:issue|bug|problem|culprit|cause)\b/i,
  /\bturns out\b/i,
]

const REJECTION: readonly RegExp[] = [
  /\binstead\b/i,
  // "X rather than Y": the sentence names the option it turned down.
  /\brather than\b/i,
  /\b(?:doesn't|does not|didn't|did not|won't|will not|wouldn't|can't|cannot)\s+(?:work|help|resolve|fix|solve)\b/i,
  /\b(?:doesn't|does not|didn't|did not)\s+support\b/i,
  /\b(?:not supported|unsupported)\b/i,
  /\b(?:revert(?:ed|ing)?|rolled back|roll back|undo(?:ne)?|undid|rejected|abandon(?:ed|ing)?|backed out)\b/i,
  /\brestor(?:e|ed|ing) (?:the|it|them|to)\b/i,
  /\b(?:not being picked up|is ignored|was ignored|being ignored|no luck|dead end)\b/i,
  /\bthat(?:'s| is) not it\b/i,
  // "X was the obvious alternative, but …", "I considered X, but …": an option weighed and turned down.
  /\b(?:(?:the|an?) (?:obvious |other |usual |simpler )?alternative|considered|could have used)\b[^.]*,\s*but\b/i,
]

const OPEN_WORK: readonly RegExp[] = [
  /\bnext steps?\b/i,
  /\b(?:still|remaining|left) (?:to do|needs?|need to|to be done)\b/i,
  /\bnot (?:yet )?(?:implemented|done|tested|verified|compiled|resolved)\b/i,
  /\b(?:follow[- ]up|unresolved|still (?:fails|failing|broken))\b/i,
]

const REASON = new RegExp(
  "\\b(?:because|since|so that|due to|in order to|otherwise|given that|which means|as a result)\\b" +
    "|(?:^|,\\s*)as\\s+(?:it|the|this|that|they|we|there|\\w+\\s+(?:is|are|does|doesn't|has|can't))\\b",
  "i",
)

const PROBLEM = new RegExp(
  "\\b(?:doesn't|does not|didn't|did not|can't|cannot|couldn't|isn't|is not|won't|wasn't|fails?|failed|failing" +
    "|error|errors|missing|needs?|requires?|broken|stale" +
    "|not (?:found|supported|available|defined|exported|configured))\\b",
  "i",
)

const DIRECTIVE: readonly RegExp[] = [
  /^(?:please\s+|also\s+|and\s+|so\s+)?(?:do not|don't|dont|never|always|only|keep|make sure|ensure|avoid|remember)\b/i,
  /\b(?:must|mustn't|shall not|should never|should not|shouldn't|never)\b/i,
  /\byou (?:don't|do not|need to|have to|can't|cannot|can only|should)\b/i,
  /\b(?:constraint|important|requirement|note)\s*:/i,
  /\buse\s+\S+(?:\s+\S+)?\s+instead\b/i,
  /\b(?:DON'T|DO NOT|NEVER|ALWAYS|ONLY|MUST)\b/,
]

const HELD_ACTION: readonly RegExp[] = [
  /\b(?:make|do|write|commit|push|merge|deploy|change|touch|edit|delete|run)\s+(?:no|nothing)\b/i,
  /\b(?:until|unless|before)\s+(?:I|we)\s+(?:have\s+)?(?:confirm|say|approve|agree|review|tell|give|check|sign|decide|look)/i,
  /\bwait\s+(?:for|until)\s+(?:my|me|I|we|our)\b/i,
  /\bwithout\s+(?:my|our)\s+(?:go|ok|okay|approval|sign-off|confirmation|say-so)\b/i,
  /\b(?:leave|keep)\s+(?:\S+\s+){0,4}?(?:alone|untouched|unchanged|as (?:it|they) (?:is|are))\b/i,
  /\bhold off\b/i,
]

const CORRECTION: readonly RegExp[] = [
  /^\s*no\s*[,.!]/i,
  /\bundo (?:that|this|it|your|the|those|these)\b/i,
  /\b(?:i undid|undid your|reverted your|i reverted)\b/i,
  /\bthat(?:'s| is) (?:wrong|not it|not what|not right|incorrect)\b/i,
  /\b(?:don't|do not) do that\b/i,
  /\bnot what i (?:asked|wanted|meant)\b/i,
  /\byou (?:broke|fucked|messed|screwed)\b/i,
]

const NOTICE_TAGS = [
  "task-notification",
  "system-reminder",
  "command-name",
  "command-message",
  "local-command-stdout",
  "local-command-stderr",
  "user-prompt-submit-hook",
  "bash-input",
  "bash-stdout",
].join("|")

const HARNESS_NOTICE: readonly RegExp[] = [
  new RegExp(`^\\s*<(?:${NOTICE_TAGS})\\b`),
  /^\s*\[Request interrupted\b/,
  /^\s*This session is being continued from a previous conversation\b/,
  /^\s*Caveat: The messages below were generated\b/,
]

const TRIVIAL_WORDS = /^(?:continue|go on|go ahead|proceed|ok|okay|yes|y|k|thanks|thank you)[.!]*$/i

const FILLER = /^(?:perfect|great|excellent|done|good|ok|okay|alright|got it|yes|right|sure|nice|awesome|fixed)[!.]*$/i
