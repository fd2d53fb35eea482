import type { Edit } from "../src/session/edit.js"
import type { HostMessage, HostPart } from "../src/transcript/host-message.js"

/**
 * The floor of a pass that tags every item of the host's fresh copy (`npm run bench:floor`, and the main bench's floor
 * column): one walk that checks each item's message and part id against an edit made for it and writes the item's
 * prefixed text into its part. The replay target is measured against it.
 */

/** The text an item's tag prefix gives a part, or null for a part that carries no item (the renderer's rule, simplified). */
function taggedText(part: HostPart, tag: number): string | null {
  if (part.type === "text") return `§${tag}§ ${part.text}`
  if (part.type === "tool" && part.state.status === "completed") return `§${tag}§ ${part.state.output}`
  return null
}

/** A set-text or set-tool-result edit per item, in list order, as a replay pass renders them. */
export function itemEdits(messages: readonly HostMessage[]): Edit[] {
  const edits: Edit[] = []
  for (const message of messages) {
    for (const part of message.parts) {
      const text = taggedText(part, edits.length + 1)
      if (text === null) continue
      const type = part.type === "text" ? "set-text" : "set-tool-result"
      edits.push({ type, messageId: message.info.id, partId: part.id, text })
    }
  }
  return edits
}

/** Every item's prefixed text written into its part, by direct reference (no lookup at all). */
export function writeDirect(messages: readonly HostMessage[], edits: readonly Edit[]): void {
  let next = 0
  for (const message of messages) {
    for (const part of message.parts) {
      const edit = edits[next]
      if (edit === undefined || (edit.type !== "set-text" && edit.type !== "set-tool-result")) continue
      if (part.type === "text") part.text = edit.text
      else if (part.type === "tool" && part.state.status === "completed") part.state.output = edit.text
      else continue
      next += 1
    }
  }
}

/** Each item's message and part id compared with the copy's, as any check that the copy is the one the edits were made for must. */
export function compareIds(messages: readonly HostMessage[], edits: readonly Edit[]): number {
  let next = 0
  for (const message of messages) {
    for (const part of message.parts) {
      const edit = edits[next]
      if (edit === undefined || (edit.type !== "set-text" && edit.type !== "set-tool-result")) continue
      if (edit.messageId === message.info.id && edit.partId === part.id) next += 1
    }
  }
  return next
}

/** `compareIds` and `writeDirect` in one walk: each item's ids checked, then its text written. Returns how many items. */
export function tagAndCheck(messages: readonly HostMessage[], edits: readonly Edit[]): number {
  let next = 0
  for (const message of messages) {
    for (const part of message.parts) {
      const edit = edits[next]
      if (edit === undefined || (edit.type !== "set-text" && edit.type !== "set-tool-result")) continue
      if (edit.messageId !== message.info.id || edit.partId !== part.id) continue
      if (part.type === "text") part.text = edit.text
      else if (part.type === "tool" && part.state.status === "completed") part.state.output = edit.text
      else continue
      next += 1
    }
  }
  return next
}

/** `tagAndCheck` timed on `messages`, in ms; a session without items is an error (its floor would time nothing). */
export function timedFloor(messages: readonly HostMessage[], edits: readonly Edit[]): number {
  const started = performance.now()
  const items = tagAndCheck(messages, edits)
  const ms = performance.now() - started
  if (items === 0) throw new Error("the session has no items")
  return ms
}
