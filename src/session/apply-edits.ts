import type { Edit } from "./edit.js"
import type { HostMessage, HostPart } from "../transcript/host-message.js"

/**
 * Applies rendered edits to the host's message list in place (the transform hook must mutate, not replace).
 * Every edit is resolved against the list first; only when all of them fit is anything written, so a bad edit
 * leaves the messages exactly as they were. Content edits are applied first, then part insertions and removals,
 * then message removals, then message insertions (at the start or after their anchor, in edit order).
 */
export function applyEdits(messages: HostMessage[], edits: readonly Edit[]): void {
  const byId = new Map(messages.map((message) => [message.info.id, message]))
  const removing = new Set(edits.flatMap((edit) => (edit.type === "remove-message" ? [edit.messageId] : [])))
  const writes = edits.map((edit) => prepare(byId, edit, removing))
  for (const stage of [0, 1, 2] as const) {
    for (const write of writes) if (write.stage === stage) write.run()
  }
  // Folded history removes thousands of messages at once: one pass over the list, not a splice each.
  if (removing.size > 0) {
    let kept = 0
    for (const message of messages) if (!removing.has(message.info.id)) messages[kept++] = message
    messages.length = kept
  }
  const inserted = edits.filter((edit): edit is Extract<Edit, { type: "insert-message" }> => edit.type === "insert-message")
  let atStart = 0
  const afterAnchor = new Map<string, number>()
  for (const edit of inserted) {
    if (edit.afterMessageId === null) {
      messages.splice(atStart, 0, edit.message)
      atStart += 1
      continue
    }
    const anchor = edit.afterMessageId
    // Several messages after one anchor keep their edit order.
    const position = messages.findIndex((message) => message.info.id === anchor) + 1 + (afterAnchor.get(anchor) ?? 0)
    messages.splice(position, 0, edit.message)
    afterAnchor.set(anchor, (afterAnchor.get(anchor) ?? 0) + 1)
  }
}

type Write = { stage: 0 | 1 | 2 | 3; run: () => void }

function prepare(byId: Map<string, HostMessage>, edit: Edit, removed: ReadonlySet<string>): Write {
  if (edit.type === "insert-message") {
    const anchor = edit.afterMessageId
    if (anchor !== null && (!byId.has(anchor) || removed.has(anchor))) {
      throw new Error(`edit inserts after message ${anchor}, which is missing`)
    }
    if (byId.has(edit.message.info.id)) throw new Error(`edit inserts message ${edit.message.info.id}, which already exists`)
    return { stage: 3, run: () => undefined }
  }
  if (edit.type === "remove-message") {
    if (!byId.has(edit.messageId)) throw new Error(`edit removes message ${edit.messageId}, which is missing`)
    return { stage: 3, run: () => undefined }
  }
  const message = byId.get(edit.messageId)
  if (!message) throw new Error(`edit refers to message ${edit.messageId}, which is missing`)
  switch (edit.type) {
    case "set-text": {
      const part = expectPart(message, edit.partId, "text")
      return { stage: 0, run: () => void (part.text = edit.text) }
    }
    case "set-tool-result": {
      const part = expectPart(message, edit.partId, "tool")
      if (part.state.status !== "completed" && part.state.status !== "error") {
        throw new Error(`edit sets the result of tool part ${edit.partId}, which has not finished`)
      }
      // Resolve the state when writing: a set-tool-input on the same part may have replaced the object.
      const write = (): void => {
        const state = part.state
        if (state.status === "completed") state.output = edit.text
        if (state.status === "error") state.error = edit.text
      }
      return { stage: 0, run: write }
    }
    case "set-tool-input": {
      const part = expectPart(message, edit.partId, "tool")
      // The host's state object may be shared with its own records: replace it rather than mutate its input.
      return { stage: 0, run: () => void (part.state = { ...part.state, input: edit.input } as typeof part.state) }
    }
    case "insert-part": {
      expectAnyPart(message, edit.beforePartId)
      const first = message.parts[0]
      const inserted: HostPart = {
        id: edit.partId,
        sessionID: first?.sessionID ?? message.info.sessionID,
        messageID: message.info.id,
        type: "text",
        text: edit.text,
        synthetic: true,
      }
      return {
        stage: 1,
        run: () => void message.parts.splice(message.parts.findIndex((part) => part.id === edit.beforePartId), 0, inserted),
      }
    }
    case "remove-part": {
      expectAnyPart(message, edit.partId)
      return {
        stage: 2,
        run: () => void message.parts.splice(message.parts.findIndex((part) => part.id === edit.partId), 1),
      }
    }
  }
}

function expectAnyPart(message: HostMessage, partId: string): HostPart {
  const part = message.parts.find((candidate) => candidate.id === partId)
  if (!part) throw new Error(`edit refers to part ${partId} of message ${message.info.id}, which is missing`)
  return part
}

function expectPart<T extends HostPart["type"]>(message: HostMessage, partId: string, type: T): Extract<HostPart, { type: T }> {
  const part = expectAnyPart(message, partId)
  if (part.type !== type) throw new Error(`edit expected ${type} part ${partId}, found a ${part.type} part`)
  return part as Extract<HostPart, { type: T }>
}
