/*
 * Over 300 lines: applying edits all or nothing is one walk that resolves every edit, then the writes in their order;
 * the placed writes (by the renderer's recorded positions) and the lookups by id share that walk.
 */
import { isContentEdit, type Edit, type PlacedEdits } from "./edit.js"
import type { HostMessage, HostPart, HostToolPart } from "../transcript/host-message.js"

/**
 * Applies rendered edits to the host's message list in place (the transform hook must mutate, not replace).
 * Every edit is resolved against the list first; only when all of them fit is anything written, so a bad edit
 * leaves the messages exactly as they were. Content edits are applied first, then part insertions and removals,
 * then message removals, then message insertions (at the start or after their anchor, in edit order). `lists` are
 * applied as one list, in order (the pass's edits and the shell's own, without copying them into one).
 */
export function applyEdits(messages: HostMessage[], ...lists: EditLists): void {
  void apply(messages, lists, null)
}

/**
 * The edits a pass rendered and the messages it rendered them for, as the pass left them (`PassResult.rendered`):
 * where its live messages' edits land (`placed`), or null when the pass has no such record.
 */
export type RenderedList = { messages: readonly HostMessage[]; edits: readonly Edit[]; placed: PlacedEdits | null }

/**
 * `applyEdits` onto the very messages a pass rendered (the same objects in the same order, unchanged since): a
 * content edit of the pass's live messages is written into the part at the position the renderer recorded for it,
 * without comparing ids (the pass compared every part's id this call, `beginPass`, and the positions were recorded
 * from a message of those ids in that order). Any other edit, and every edit when the messages are others, is looked
 * up by id. Returns how many content edits were written by position.
 */
export function applyRenderedEdits(messages: HostMessage[], rendered: RenderedList, ...lists: EditLists): number {
  const placed = rendered.placed
  const own = placed !== null && sameMessages(rendered.messages, messages) && placedWithin(placed, messages)
  return apply(messages, lists, own ? { edits: rendered.edits, placed } : null)
}

/**
 * True when every part the placed edits write is in `messages` where the renderer recorded it, checked before anything
 * is written so that applying stays all or nothing. Each position was recorded from a message of the same part ids
 * in the same order, which `beginPass` verified for this very copy; this only reads how many parts each message with
 * placed edits has (a message's edits come together: its count is read once, not its parts).
 */
function placedWithin(placed: PlacedEdits, messages: readonly HostMessage[]): boolean {
  const { targets, liveFrom } = placed
  let message = -1
  let parts = 0
  for (let at = 0; at < targets.length; at += 2) {
    const part = targets[at + 1] as number
    if (part < 0) continue
    if (targets[at] !== message) {
      message = targets[at] as number
      parts = messages[liveFrom + message]?.parts.length ?? 0
    }
    if (part >= parts) return false
  }
  return true
}

type EditLists = readonly (readonly Edit[])[]
/** A list of edits and where its live edits land. */
type PlacedList = { edits: readonly Edit[]; placed: PlacedEdits }

/** Applies `lists` (see `applyEdits`); returns how many content edits were written where `rendered` placed them. */
function apply(messages: HostMessage[], lists: EditLists, rendered: PlacedList | null): number {
  const byId = messageLocator(messages)
  // One walk resolves every edit (a part edit's part, or its message for an insert or removal) and sorts it by the
  // step that writes it; nothing is written before the walk ends. Content edits and their parts are kept side by side
  // (no object per edit: a replay pass has one per tagged item).
  const contentEdits: Edit[] = []
  const contentParts: HostPart[] = []
  const partInserts: { edit: Extract<Edit, { type: "insert-part" }>; message: HostMessage }[] = []
  const partRemovals: { edit: Extract<Edit, { type: "remove-part" }>; message: HostMessage }[] = []
  const removing = new Set<string>()
  const messageInserts: Extract<Edit, { type: "insert-message" }>[] = []
  let byPosition = 0
  // How many of the list's first messages the placed removals take (the folded ones, in order: no lookup by id).
  let leadingRemoved = 0
  for (const edits of lists) {
    // The positions of the pass's own edits, when these are they.
    const placed = rendered !== null && edits === rendered.edits ? rendered.placed : null
    for (let index = 0; index < edits.length; index += 1) {
      if (placed !== null && index < placed.removed) {
        leadingRemoved += 1
        continue
      }
      // A placed edit is a content edit (the renderer places no other) whose part is where the renderer recorded it:
      // neither is looked at before it is written (a replay pass has one per tagged item).
      if (placed !== null && placedPosition(placed, index) >= 0) {
        byPosition += 1
        continue
      }
      const edit = edits[index] as Edit
      switch (edit.type) {
        case "insert-message":
          messageInserts.push(edit)
          break
        case "remove-message":
          if (!byId.get(edit.messageId)) throw new Error(`edit removes message ${edit.messageId}, which is missing`)
          removing.add(edit.messageId)
          break
        case "insert-part": {
          const message = expectMessage(byId, edit.messageId)
          expectAnyPart(byId, message, edit.beforePartId)
          partInserts.push({ edit, message })
          break
        }
        case "remove-part": {
          const message = expectMessage(byId, edit.messageId)
          expectAnyPart(byId, message, edit.partId)
          partRemovals.push({ edit, message })
          break
        }
        default:
          contentParts.push(contentTarget(byId, edit))
          contentEdits.push(edit)
      }
    }
  }
  // An insertion's anchor must be there and stay (every removal is known now).
  for (const edit of messageInserts) {
    const anchor = edit.afterMessageId
    const found = anchor === null ? undefined : byId.get(anchor)
    const gone = anchor !== null && (removing.has(anchor) || (leadingRemoved > 0 && found !== undefined && messages.indexOf(found) < leadingRemoved))
    if (anchor !== null && (!found || gone)) throw new Error(`edit inserts after message ${anchor}, which is missing`)
    if (byId.listed(edit.message.info.id)) throw new Error(`edit inserts message ${edit.message.info.id}, which already exists`)
  }
  if (byPosition > 0) writePlacedContent(messages, lists, rendered, contentEdits, contentParts)
  else for (let index = 0; index < contentEdits.length; index += 1) writeContent(contentEdits[index] as Edit, contentParts[index] as HostPart)
  for (const { edit, message } of partInserts) {
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
  for (const { edit, message } of partRemovals) message.parts.splice(message.parts.findIndex((part) => part.id === edit.partId), 1)
  // Folded history removes thousands of messages at once: one pass over the list, not a splice each.
  if (leadingRemoved > 0) messages.splice(0, leadingRemoved)
  if (removing.size > 0) {
    let kept = 0
    for (const message of messages) if (!removing.has(message.info.id)) messages[kept++] = message
    messages.length = kept
  }
  let atStart = 0
  const afterAnchor = new Map<string, number>()
  for (const edit of messageInserts) {
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
  return byPosition
}

/** True when both lists hold the same message objects in the same order (a shell may hand a copy of the array). */
function sameMessages(a: readonly HostMessage[], b: readonly HostMessage[]): boolean {
  if (a === b) return true
  if (a.length !== b.length) return false
  for (let index = 0; index < a.length; index += 1) if (a[index] !== b[index]) return false
  return true
}

/**
 * Writes the content edits in list order: a placed one into its part, the others into the parts they were looked up
 * in (`looked`, in the same order).
 */
function writePlacedContent(
  messages: readonly HostMessage[],
  lists: EditLists,
  rendered: PlacedList | null,
  looked: readonly Edit[],
  lookedParts: readonly HostPart[],
): void {
  let next = 0
  for (const edits of lists) {
    const placed = rendered !== null && edits === rendered.edits ? rendered.placed : null
    for (let index = 0; index < edits.length; index += 1) {
      const edit = edits[index] as Edit
      if (placed !== null && placedPosition(placed, index) >= 0) writeContent(edit, placedPart(messages, placed, index))
      else if (isContentEdit(edit)) {
        writeContent(looked[next] as Edit, lookedParts[next] as HostPart)
        next += 1
      }
    }
  }
}

/** The position in its message of the part the `index`-th edit writes by `placed`'s record, or -1 when it has none. */
function placedPosition(placed: PlacedEdits, index: number): number {
  const at = (index - placed.offset) * 2
  return at < 0 || at >= placed.targets.length ? -1 : (placed.targets[at + 1] as number)
}

/** The part the `index`-th edit writes by `placed`'s record (`placedPosition` is not -1). */
function placedPart(messages: readonly HostMessage[], placed: PlacedEdits, index: number): HostPart {
  const at = (index - placed.offset) * 2
  const part = messages[placed.liveFrom + (placed.targets[at] as number)]?.parts[placed.targets[at + 1] as number]
  if (part === undefined) throw new Error(`placed edit ${index} names a part the messages do not have`)
  return part
}

/** Finds the message of an id in the list the edits are applied to. */
type MessageLocator = {
  get(id: string): HostMessage | undefined
  /** Where a search of the parts of the message the latest `get` found starts: the part after the one found last in it. */
  partCursor: number
  listed(id: string): boolean
}

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
  const locator: MessageLocator = {
    partCursor: 0,
    get(id) {
      for (let step = 0; step < LOOKAHEAD && cursor + step < messages.length; step += 1) {
        const message = messages[cursor + step] as HostMessage
        if (message.info.id === id) {
          if (step > 0) locator.partCursor = 0
          cursor += step
          return message
        }
      }
      index ??= new Map(messages.map((message, at) => [message.info.id, at]))
      const at = index.get(id)
      if (at === undefined) return undefined
      if (at !== cursor) locator.partCursor = 0
      cursor = at
      return messages[at]
    },
    listed(id) {
      return messages.some((message) => message.info.id === id)
    },
  }
  return locator
}

/** The part a content edit (text, tool result, tool input) writes to; throws, naming the edit, when it does not fit. */
function contentTarget(byId: MessageLocator, edit: Extract<Edit, { type: "set-text" | "set-tool-result" | "set-tool-input" }>): HostPart {
  const message = expectMessage(byId, edit.messageId)
  switch (edit.type) {
    case "set-text":
      return expectPart(byId, message, edit.partId, "text")
    case "set-tool-result": {
      const part = expectPart(byId, message, edit.partId, "tool")
      if (part.state.status !== "completed" && part.state.status !== "error") {
        throw new Error(`edit sets the result of tool part ${edit.partId}, which has not finished`)
      }
      return part
    }
    case "set-tool-input":
      return expectPart(byId, message, edit.partId, "tool")
  }
}

/** Writes a content edit (text, tool result, tool input) into its resolved part; other edits are written later. */
function writeContent(edit: Edit, target: HostPart): void {
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

/** The message of an edit; throws when it is missing. */
function expectMessage(byId: MessageLocator, messageId: string): HostMessage {
  const message = byId.get(messageId)
  if (!message) throw new Error(`edit refers to message ${messageId}, which is missing`)
  return message
}

/**
 * The part `partId` of `message`, the message `byId` found last; throws when it is missing. A message's edits come in
 * the order of its parts, so the search starts after the part found last in the same message and wraps around.
 */
function expectAnyPart(byId: MessageLocator, message: HostMessage, partId: string): HostPart {
  const parts = message.parts
  const from = byId.partCursor < parts.length ? byId.partCursor : 0
  for (let step = 0; step < parts.length; step += 1) {
    const at = (from + step) % parts.length
    const part = parts[at] as HostPart
    if (part.id !== partId) continue
    byId.partCursor = at + 1
    return part
  }
  throw new Error(`edit refers to part ${partId} of message ${message.info.id}, which is missing`)
}

function expectPart<T extends HostPart["type"]>(byId: MessageLocator, message: HostMessage, partId: string, type: T): Extract<HostPart, { type: T }> {
  const part = expectAnyPart(byId, message, partId)
  if (part.type !== type) throw new Error(`edit expected ${type} part ${partId}, found a ${part.type} part`)
  return part as Extract<HostPart, { type: T }>
}
