/**
 * The cooperative agent's side of magic-context's reminders. A reminder is a `<system-reminder>magic-context: …`
 * block (src/pressure/plan-nudge.ts): appended to the newest tool result, or a steer message after the newest
 * message. The cooperative mock answers the newest one, once, with a ctx_reduce call that drops its oldest finished
 * tool outputs. Everything here reads the request alone, so the answer is deterministic in it.
 */
import { messageText, type ChatRequest } from "../../test/e2e/harness/mock-model-server.js"
import { prefixTag } from "../../test/e2e/harness/prompt-inspection.js"
import { compactRanges } from "../../src/reduce/parse-drop-ranges.js"

const REMINDER_OPENING = "<system-reminder>magic-context:"
const REMINDER = /<system-reminder>magic-context:[\s\S]*?<\/system-reminder>/g

/** Tool outputs the answer keeps: the newest few, which the script's next steps may still be working from. */
export const KEEP_NEWEST_OUTPUTS = 3

/** The request's magic-context reminder blocks, in message order. */
export function reminderBlocks(request: ChatRequest): string[] {
  return request.messages.flatMap((message) => messageText(message).match(REMINDER) ?? [])
}

/** How many reminder blocks of `current` were not in `previous` (compared as texts, each occurrence once). */
export function newReminders(previous: readonly string[], current: readonly string[]): number {
  const left = [...previous]
  return current.filter((block) => {
    const index = left.indexOf(block)
    if (index === -1) return true
    left.splice(index, 1)
    return false
  }).length
}

/**
 * True when the request's newest reminder has no ctx_reduce call after it: the agent has not answered it yet. A
 * reminder stays in the prompt until magic-context's next execute pass, so the answer it got stays visible after it.
 */
export function hasUnansweredReminder(request: ChatRequest): boolean {
  const messages = request.messages
  const newest = messages.findLastIndex((message) => messageText(message).includes(REMINDER_OPENING))
  if (newest === -1) return false
  return !messages
    .slice(newest + 1)
    .some((message) => (message.tool_calls ?? []).some((call) => call.function.name === "ctx_reduce"))
}

/** The tags of the request's tool outputs (they start with `§N§ `) except the newest `keepNewest`, oldest first. */
export function oldToolOutputTags(request: ChatRequest, keepNewest: number): number[] {
  const outputs = request.messages.filter((message) => message.role === "tool")
  return outputs
    .slice(0, Math.max(0, outputs.length - keepNewest))
    .flatMap((message) => {
      const tag = prefixTag(messageText(message))
      return tag === null ? [] : [tag]
    })
}

/**
 * The `drop` argument of the answer to an unanswered reminder: every tagged tool output but the newest few, as
 * compact ranges ("3-5,12"). Null when there is no unanswered reminder or nothing old enough to drop (the script
 * goes on).
 */
export function reminderDrop(request: ChatRequest): string | null {
  if (!hasUnansweredReminder(request)) return null
  const tags = oldToolOutputTags(request, KEEP_NEWEST_OUTPUTS)
  return tags.length === 0 ? null : compactRanges(tags)
}
