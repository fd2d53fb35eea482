import type { Edit } from "../render/edit.js"
import type { HostMessage, HostPart } from "../transcript/host-message.js"

/**
 * Applies rendered edits to the host's message list in place (the transform hook must mutate, not replace).
 * Every edit is checked against the list first; only when all of them fit is anything written, so a bad edit
 * leaves the messages exactly as they were.
 */
export function applyEdits(messages: HostMessage[], edits: readonly Edit[]): void {
  const writes = edits.map((edit) => prepare(messages, edit))
  // Insertions shift later indices, so apply from the back of each message forwards.
  const order = writes
    .map((write, index) => ({ write, index, edit: edits[index] as Edit }))
    .sort((a, b) => b.edit.messageIndex - a.edit.messageIndex || b.edit.partIndex - a.edit.partIndex || b.index - a.index)
  for (const { write } of order) write()
}

function prepare(messages: HostMessage[], edit: Edit): () => void {
  const message = messages[edit.messageIndex]
  if (!message) throw new Error(`edit refers to message ${edit.messageIndex}, but there are ${messages.length}`)
  const part = message.parts[edit.partIndex]
  switch (edit.type) {
    case "prefix-text": {
      const text = expectPart(part, edit.partId, "text")
      return () => {
        text.text = edit.prefix + text.text
      }
    }
    case "prefix-tool-output": {
      const tool = expectPart(part, edit.partId, "tool")
      const state = tool.state
      if (state.status === "completed") return () => void (state.output = edit.prefix + state.output)
      if (state.status === "error") return () => void (state.error = edit.prefix + state.error)
      return () => undefined
    }
    case "insert-text": {
      if (!part || part.id !== edit.beforePartId) {
        throw new Error(`edit expected to insert before part ${edit.beforePartId}, found ${part ? `part ${part.id}` : "nothing"}`)
      }
      const inserted: HostPart = {
        id: edit.newPartId,
        sessionID: part.sessionID,
        messageID: part.messageID,
        type: "text",
        text: edit.text,
        synthetic: true,
      }
      return () => void message.parts.splice(edit.partIndex, 0, inserted)
    }
  }
}

function expectPart<T extends HostPart["type"]>(
  part: HostPart | undefined,
  partId: string,
  type: T,
): Extract<HostPart, { type: T }> {
  if (!part || part.id !== partId || part.type !== type) {
    throw new Error(`edit expected ${type} part ${partId}, found ${part ? `${part.type} part ${part.id}` : "nothing"}`)
  }
  return part as Extract<HostPart, { type: T }>
}
