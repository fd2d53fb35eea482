import type { Placement, SessionState } from "../session/session-state.js"
import type { HostMessage } from "../transcript/host-message.js"
import type { Edit } from "../session/edit.js"

/** The messages a render inserts into the host's list: the folded history at its start, and hidden steer messages. */

/**
 * The steer placements that render: the anchor is in the list and not folded into history (a steer whose anchor
 * was folded has nothing to follow), and the list has a user message to take the agent and model from.
 */
export function renderedSteers(options: {
  messages: readonly HostMessage[]
  state: SessionState
  placements: readonly Placement[]
}): Placement[] {
  const { messages, state, placements } = options
  const folded = state.applied.history?.foldedThroughSeq ?? 0
  const hasUser = messages.some((message) => message.info.role === "user")
  return placements.filter((placement) => {
    if (placement.kind !== "steer" || !hasUser) return false
    const anchor = messages.find((message) => message.info.id === placement.anchorId)
    return anchor !== undefined && (state.messageSeq.get(anchor.info.id) ?? Number.POSITIVE_INFINITY) > folded
  })
}

/** The message that carries the folded history at the start of the prompt (a synthetic user message). */
export function foldedHistoryMessage(messages: readonly HostMessage[], text: string, foldedThroughSeq: number): HostMessage | null {
  const user = messages.findLast((message) => message.info.role === "user")
  const first = messages[0]
  if (!user || user.info.role !== "user" || !first) return null
  const id = `mc-history-${foldedThroughSeq}`
  return {
    info: { id, sessionID: first.info.sessionID, role: "user", time: { created: first.info.time.created }, agent: user.info.agent, model: user.info.model },
    parts: [{ id: `${id}-text`, sessionID: first.info.sessionID, messageID: id, type: "text", text, synthetic: true }],
  }
}

/** A hidden steer message (channel 2): a synthetic user message right after its anchor. */
export function steerMessage(messages: readonly HostMessage[], placement: Placement): Edit | null {
  const anchor = messages.find((message) => message.info.id === placement.anchorId)
  if (!anchor) return null
  const user = [...messages].reverse().find((message) => message.info.role === "user")
  if (!user || user.info.role !== "user") return null
  // One steer per anchor at a time (placed once per epoch, gone at the next execute): the anchor names it. Not the
  // pass: a replay into a store that holds an earlier run numbers its passes on from there.
  const id = `${placement.anchorId}-steer`
  const message: HostMessage = {
    info: {
      id,
      sessionID: anchor.info.sessionID,
      role: "user",
      time: { created: anchor.info.time.created },
      agent: user.info.agent,
      model: user.info.model,
    },
    parts: [{ id: `${id}-text`, sessionID: anchor.info.sessionID, messageID: id, type: "text", text: placement.text, synthetic: true }],
  }
  return { type: "insert-message", afterMessageId: placement.anchorId, message }
}
