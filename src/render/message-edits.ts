import type { SessionState } from "../session/session-state.js"
import type { HostMessage } from "../transcript/host-message.js"
import { sameSignature } from "../session/message-signature.js"
import type { Trackable } from "../transcript/trackables.js"
import { isContentEdit, type Edit } from "../session/edit.js"
import { renderItem } from "./render-item.js"
import type { MessageMemoEntry } from "../session/message-memo.js"
import type { LiveFacts } from "../session/live-facts.js"

/**
 * `messageEdits`, reused while the message's live facts are the same object (the message and its records are
 * unchanged), tags show as they did and its items carry the same reminders.
 */
export function factEdits(
  entry: MessageMemoEntry,
  facts: LiveFacts,
  message: HostMessage,
  state: SessionState,
  tagsVisible: boolean,
  nudges: ReadonlyMap<string, string[]>,
  nudged: ReadonlySet<string> | null,
): readonly Edit[] {
  let reminders = ""
  if (nudges.size > 0 && (nudged === null || nudged.has(message.info.id))) {
    facts.trackables.forEach((trackable, index) => {
      const texts = nudges.get(trackable.partId)
      if (texts) reminders += `${index}\u0000${texts.join("\u0000")}\u0001`
    })
  }
  const made = entry.rendered?.made
  if (entry.rendered && made && "facts" in made && made.facts === facts && made.tagsVisible === tagsVisible && made.nudges === reminders) {
    return entry.rendered.edits
  }
  const edits = messageEdits(message, facts.trackables, state, tagsVisible, nudges)
  entry.rendered = { made: { facts, tagsVisible, nudges: reminders }, edits, partAt: contentPartPositions(message, edits) }
  entry.chunk = null
  return edits
}

/** The edits of one live message: its withheld reasoning parts taken out, its tagged items rendered. */
export function messageEdits(
  message: HostMessage,
  trackables: readonly Trackable[],
  state: SessionState,
  tagsVisible: boolean,
  nudges: ReadonlyMap<string, string[]>,
): Edit[] {
  const parts = new Map(message.parts.map((part) => [part.id, part]))
  const edits: Edit[] = []
  for (const part of message.parts) {
    if (part.type === "reasoning" && state.parts.get(part.id)?.withheld === true) {
      edits.push({ type: "remove-part", messageId: message.info.id, partId: part.id })
    }
  }
  for (const trackable of trackables) {
    const tag = state.tagsByPart.get(trackable.partId)
    if (!tag) continue
    edits.push(...renderItem({ message, parts, trackable, tag, tagsVisible, nudges: nudges.get(trackable.partId) ?? [] }))
  }
  return edits
}

/**
 * `messageEdits`, reused from an earlier render when nothing it reads changed: the message (its memo entry is
 * current), whether its reasoning parts are withheld, its items' tags (number, status, why dropped, what superseded
 * it), whether tags show, and the reminders on its items.
 */
export function memoizedMessageEdits(
  entry: MessageMemoEntry,
  message: HostMessage,
  state: SessionState,
  tagsVisible: boolean,
  nudges: ReadonlyMap<string, string[]>,
): readonly Edit[] {
  const inputs: unknown[] = [tagsVisible]
  for (const part of message.parts) if (part.type === "reasoning") inputs.push(state.parts.get(part.id)?.withheld === true)
  for (const trackable of entry.trackables) {
    const tag = state.tagsByPart.get(trackable.partId)
    inputs.push(tag?.tag, tag?.status, tag?.droppedReason, tag?.supersededBy, ...(nudges.get(trackable.partId) ?? []), "\u0000")
  }
  const made = entry.rendered?.made
  if (entry.rendered && made && "inputs" in made && sameSignature(made.inputs, inputs)) return entry.rendered.edits
  const edits = messageEdits(message, entry.trackables, state, tagsVisible, nudges)
  entry.rendered = { made: { inputs }, edits, partAt: contentPartPositions(message, edits) }
  entry.chunk = null
  return edits
}

/** Per edit of one message, the position of the part a content edit writes (-1 for the other edits). */
export function contentPartPositions(message: HostMessage, edits: readonly Edit[]): number[] {
  if (edits.length === 0) return []
  const positions = new Map(message.parts.map((part, position) => [part.id, position]))
  return edits.map((edit) => (isContentEdit(edit) ? (positions.get(edit.partId) ?? -1) : -1))
}
