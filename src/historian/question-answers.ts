/**
 * The user's own words in a host's question tool (`question-answers`): OpenCode's `question` and Claude Code's
 * `AskUserQuestion` return the user's choices as `User has answered your questions: "<question>"="<answer>", … .`
 * Each answer is the user's decision, pinned like typed user text, with its question so the answer reads on its own.
 * Pure; never throws on any content.
 */
import { MAX_DIRECTIVE_CHARS } from "./user-text-facts.js"

/** `"question"="answer"`: one answered question as the tool prints it (quotes inside may be unescaped). */
const ANSWER = /"((?:[^"]|"(?!="))*)"="((?:[^"]|"(?!,\s*"|\.\s))*)"/g

/** What the tool says before the answers, in the hosts that word it so. */
const ANSWERED = /answered (?:your|the) questions?:/i

/**
 * The answers in a question tool's output, each `"question"="answer"` verbatim as printed; an output in another
 * shape is one answer, whole, when it is no longer than a typed directive. Unanswered questions are left out.
 */
export function questionAnswers(output: string): string[] {
  const text = output.trim()
  if (text === "") return []
  if (ANSWERED.test(text)) {
    const pairs = [...text.matchAll(ANSWER)].filter((match) => (match[2] ?? "").trim() !== "" && match[2] !== "Unanswered")
    return pairs.map((match) => match[0])
  }
  return text.length <= MAX_DIRECTIVE_CHARS ? [text] : []
}
