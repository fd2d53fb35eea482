import type { HostMessage } from "../transcript/host-message.js"

/**
 * The running turn of a message list: from the newest user message to the end. While an assistant message follows
 * that user message the turn is open (a tool loop runs: the next request continues it); when the newest message is the
 * user's, the list is at a turn boundary. Providers bind reasoning to the running turn (`reasoning-rules.ts`).
 */
export type RunningTurn = {
  /** The index of the newest user message (0 when there is none: the whole list is one turn). */
  fromIndex: number
  /** An assistant message follows the newest user message. */
  open: boolean
  /** A message of the open turn carries a reasoning part (a thinking block the next request sends back). */
  reasoning: boolean
}

/** The running turn of `messages` (read from the end: a pass's cost stays in proportion to the new material). */
export function runningTurn(messages: readonly HostMessage[]): RunningTurn {
  let reasoning = false
  for (let index = messages.length - 1; index >= 0; index -= 1) {
    const message = messages[index] as HostMessage
    if (message.info.role === "user") return { fromIndex: index, open: index < messages.length - 1, reasoning }
    if (!reasoning) reasoning = message.parts.some((part) => part.type === "reasoning")
  }
  return { fromIndex: 0, open: messages.length > 0, reasoning }
}
