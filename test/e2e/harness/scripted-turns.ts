import { newestMessage } from "./history-inspection.js"
import { messageText, replyCalls, toolCallId, type ChatRequest, type MockReply } from "./mock-model-server.js"

/** One step of a turn: the reply to the request that follows the previous step (or the user's message). */
export type TurnStep = (request: ChatRequest, n: number) => MockReply

/** A user turn the scripted model recognises by `marker` in the user's text, and the steps it answers with. */
export type ScriptedTurn = { marker: string; steps: TurnStep[] }

/**
 * A model that follows scripted turns and finds its place from the newest message alone: a user message starts
 * the turn whose marker it contains; a tool result continues the turn after the step whose call it answers (the
 * mock's call id names the request that made the call). Counting tool results instead would break as soon as
 * magic-context folds settled messages into the history. Returns null for a request it has no step for.
 */
export function createTurnScript(
  turns: readonly ScriptedTurn[],
): (request: ChatRequest, n: number) => MockReply | null {
  const calls = new Map<string, { turn: ScriptedTurn; index: number }>()
  return (request, n) => {
    const newest = newestMessage(request)
    let position: { turn: ScriptedTurn; index: number } | undefined
    if (newest?.role === "user") {
      const text = messageText(newest)
      const turn = turns.find((candidate) => text.includes(candidate.marker))
      if (turn) position = { turn, index: 0 }
    } else if (newest?.role === "tool") {
      const previous = calls.get(newest.tool_call_id ?? "")
      if (previous) position = { turn: previous.turn, index: previous.index + 1 }
    }
    const step = position ? position.turn.steps[position.index] : undefined
    if (!position || !step) return null
    const reply = step(request, n)
    replyCalls(reply).forEach((_, index) => calls.set(toolCallId(n, index), position))
    return reply
  }
}
