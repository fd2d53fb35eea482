import type { Edit } from "./edit.js"
import type { HostMessage, HostPart, HostToolPart } from "../transcript/host-message.js"

/**
 * Applies rendered edits to the host's message list in place (the transform hook must mutate, not replace).
 * Every edit is resolved against the list first; only when all of them fit is anything written, so a bad edit
 * leaves the messages exactly as they were. Content edits are applied first, then part insertions and removals,
 * then message removals, then message insertions (at the start or after their anchor, in edit order).
 */
export function applyEdits(messages: HostMessage[], edits: readonly Edit[]): void {
  const byId = messageLocator(messages)
  const removing = new Set<string>()
  for (const edit of edits) if (edit.type === "remove-message") removing.add(edit.messageId)
  // Every edit is resolved before anything is written: a part edit's part (or its message, for an insert).
  const targets = edits.map((edit) => resolve(byId, edit, removing))
  for (let index = 0; index < edits.length; index += 1) writeContent(edits[index] as Edit, targets[index] as Target)
  for (let index = 0; index < edits.length; index += 1) {
    const edit = edits[index] as Edit
    if (edit.type !== "insert-part") continue
    const message = targets[index] as HostMessage
    const first = message.parts[0]
    const inserted: HostPart = {
      id: edit.partId,
      sessionID: first?.sessionID ?? message.info.sessionID,
      messageID: message.info.id,
      type: "text",
      text: edit.text,
      synthetic: true,
    }
    message.parts.splice(message.parts.findIndex((part) => part.id === edit.beforePartId), 0, inserted)
  }
  for (let index = 0; index < edits.length; index += 1) {
    const edit = edits[index] as Edit
    if (edit.type !== "remove-part") continue
    const message = targets[index] as HostMessage
    message.parts.splice(message.parts.findIndex((part) => part.id === edit.partId), 1)
  }
  // Folded history removes thousands of messages at once: one pass over the list, not a splice each.
  if (removing.size > 0) {
    let kept = 0
    for (const message of messages) if (!removing.has(message.info.id)) messages[kept++] = message
    messages.length = kept
  }
  let atStart = 0
  const afterAnchor = new Map<string, number>()
  for (const edit of edits) {
    if (edit.type !== "insert-message") continue
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

/** Finds the message of an id in the list the edits are applied to. */
type MessageLocator = { get(id: string): HostMessage | undefined; listed(id: string): boolean }

/** How many messages past the last one found a lookup walks before it asks an index (edits skip messages without any). */
const LOOKAHEAD = 8

/**
 * The renderer writes edits in list order: each lookup walks on from the message the last one found, so a pass's
 * edits are resolved in one walk over the list without hashing every message's id. A lookup that does not find its
 * message a few steps on asks an index of the whole list, built once. A list naming an id twice (a host's never does)
 * has each edit land on the copy found first from there.
 */
function messageLocator(messages: readonly HostMessage[]): MessageLocator {
  let cursor = 0
  let index: Map<string, number> | null = null
  return {
    get(id) {
      for (let step = 0; step < LOOKAHEAD && cursor + step < messages.length; step += 1) {
        const message = messages[cursor + step] as HostMessage
        if (message.info.id === id) {
          cursor += step
          return message
        }
      }
      index ??= new Map(messages.map((message, at) => [message.info.id, at]))
      const at = index.get(id)
      if (at === undefined) return undefined
      cursor = at
      return messages[at]
    },
    listed(id) {
      return messages.some((message) => message.info.id === id)
    },
  }
}

/** What an edit writes to: the part of a content edit, the message of a part insertion or removal, else null. */
type Target = HostPart | HostMessage | null

/** Checks that `edit` fits the list, and finds what it writes to; throws, naming the edit, when it does not fit. */
function resolve(byId: MessageLocator, edit: Edit, removed: ReadonlySet<string>): Target {
  if (edit.type === "insert-message") {
    const anchor = edit.afterMessageId
    if (anchor !== null && (!byId.get(anchor) || removed.has(anchor))) {
      throw new Error(`edit inserts after message ${anchor}, which is missing`)
    }
    if (byId.listed(edit.message.info.id)) throw new Error(`edit inserts message ${edit.message.info.id}, which already exists`)
    return null
  }
  if (edit.type === "remove-message") {
    if (!byId.get(edit.messageId)) throw new Error(`edit removes message ${edit.messageId}, which is missing`)
    return null
  }
  const message = byId.get(edit.messageId)
  if (!message) throw new Error(`edit refers to message ${edit.messageId}, which is missing`)
  switch (edit.type) {
    case "set-text":
      return expectPart(message, edit.partId, "text")
    case "set-tool-result": {
      const part = expectPart(message, edit.partId, "tool")
      if (part.state.status !== "completed" && part.state.status !== "error") {
        throw new Error(`edit sets the result of tool part ${edit.partId}, which has not finished`)
      }
      return part
    }
    case "set-tool-input":
      return expectPart(message, edit.partId, "tool")
    case "insert-part":
      expectAnyPart(message, edit.beforePartId)
      return message
    case "remove-part":
      expectAnyPart(message, edit.partId)
      return message
  }
}

/** Writes a content edit (text, tool result, tool input) into its resolved part; other edits are written later. */
function writeContent(edit: Edit, target: Target): void {
  switch (edit.type) {
    case "set-text":
      ;(target as Extract<HostPart, { type: "text" }>).text = edit.text
      return
    case "set-tool-result": {
      // The state is read when writing: a set-tool-input on the same part may have replaced the object.
      const state = (target as HostToolPart).state
      if (state.status === "completed") state.output = edit.text
      if (state.status === "error") state.error = edit.text
      return
    }
    case "set-tool-input": {
      const part = target as HostToolPart
      // The host's state object may be shared with its own records: replace it rather than mutate its input.
      part.state = { ...part.state, input: edit.input } as typeof part.state
      return
    }
    default:
      return
  }
}

function expectAnyPart(message: HostMessage, partId: string): HostPart {
  let part: HostPart | undefined
  for (const candidate of message.parts) {
    if (candidate.id === partId) {
      part = candidate
      break
    }
  }
  if (!part) throw new Error(`edit refers to part ${partId} of message ${message.info.id}, which is missing`)
  return part
}

function expectPart<T extends HostPart["type"]>(message: HostMessage, partId: string, type: T): Extract<HostPart, { type: T }> {
  const part = expectAnyPart(message, partId)
  if (part.type !== type) throw new Error(`edit expected ${type} part ${partId}, found a ${part.type} part`)
  return part as Extract<HostPart, { type: T }>
}
