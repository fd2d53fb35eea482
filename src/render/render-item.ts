import { inlinedFileRuns } from "../transcript/inlined-file-runs.js"
import type { TagRecord } from "../session/session-state.js"
import type { HostMessage, HostPart } from "../transcript/host-message.js"
import { isPrunedTool, toolResultText } from "../transcript/part-content.js"
import { tagPrefix } from "../transcript/tag-format.js"
import type { Trackable } from "../transcript/trackables.js"
import type { Edit } from "../session/edit.js"
import { compactToolInput, dropMarker, editedPath, itemLabel } from "./markers.js"

/**
 * The edits of one tagged item (`renderPrompt`'s unit): its `§N§ ` prefix and reminders while live, its marker once
 * dropped, on whichever part carries it (a tool's result and input, an inlined file's text run or a tag part before a
 * media file, a message's text).
 */
export function renderItem(context: {
  message: HostMessage
  parts: Map<string, HostPart>
  trackable: Trackable
  tag: TagRecord
  tagsVisible: boolean
  nudges: string[]
}): Edit[] {
  const { message, parts, trackable, tag, tagsVisible, nudges } = context
  const messageId = message.info.id
  const prefix = tagsVisible ? tagPrefix(tag.tag) : ""
  const dropped = tag.status === "dropped"
  const subject = parts.get(trackable.partId)

  if (trackable.kind === "tool") {
    if (!subject || subject.type !== "tool") return []
    const result = subject.state
    if (result.status !== "completed" && result.status !== "error") return []
    if (!dropped) {
      // OpenCode sends its own marker for a pruned output: a prefix or reminder written into it would never be read.
      if (isPrunedTool(subject)) return []
      const original = toolResultText(subject)
      const reminders = nudges.map((text) => `\n\n${text}`).join("")
      if (prefix.length === 0 && reminders.length === 0) return []
      return [{ type: "set-tool-result", messageId, partId: subject.id, text: `${prefix}${original}${reminders}` }]
    }
    const path = editedPath(subject)
    const marker = dropMarker({ tag, label: itemLabel(tag, null), tagsVisible, supersededPath: path })
    const edits: Edit[] = [{ type: "set-tool-result", messageId, partId: subject.id, text: marker }]
    const input = droppedInput(tag, subject.state.input as Record<string, unknown>, path)
    if (input !== null) edits.push({ type: "set-tool-input", messageId, partId: subject.id, input })
    return edits
  }

  if (trackable.kind === "file") {
    const file = subject && subject.type === "file" ? subject : null
    const run = inlinedFileRuns(message.parts).get(trackable.partId) ?? []
    const marker = dropMarker({ tag, label: itemLabel(tag, file?.filename ?? null), tagsVisible, supersededPath: null })
    if (trackable.render.type === "before-file") {
      if (!dropped) {
        if (prefix.length === 0) return []
        return [{ type: "insert-part", messageId, beforePartId: trackable.partId, partId: `${trackable.partId}-tag`, text: prefix }]
      }
      return [
        { type: "insert-part", messageId, beforePartId: trackable.partId, partId: `${trackable.partId}-tag`, text: marker },
        { type: "remove-part", messageId, partId: trackable.partId },
      ]
    }
    const [first, ...rest] = run
    if (!first) return []
    if (!dropped) return prefix.length === 0 ? [] : [{ type: "set-text", messageId, partId: first.id, text: `${prefix}${first.text}` }]
    return [
      { type: "set-text", messageId, partId: first.id, text: marker },
      ...rest.map((part): Edit => ({ type: "set-text", messageId, partId: part.id, text: "" })),
    ]
  }

  const carrier = subject && subject.type === "text" ? subject : null
  if (!carrier) return []
  if (!dropped) return prefix.length === 0 ? [] : [{ type: "set-text", messageId, partId: carrier.id, text: `${prefix}${carrier.text}` }]
  const marker = dropMarker({ tag, label: itemLabel(tag, null), tagsVisible, supersededPath: null })
  const fileParts = new Set([...inlinedFileRuns(message.parts).values()].flat().map((part) => part.id))
  return message.parts
    .filter((part) => part.type === "text" && !fileParts.has(part.id) && part.text.length > 0)
    .map((part): Edit => ({ type: "set-text", messageId, partId: part.id, text: part.id === carrier.id ? marker : "" }))
}

/** The input a dropped tool call is rendered with, or null when it keeps its input unchanged. */
export function droppedInput(tag: TagRecord, input: Record<string, unknown>, path: string | null): Record<string, unknown> | null {
  if (tag.droppedReason === "superseded" && path !== null) return { filePath: path }
  const compact = compactToolInput(input)
  return JSON.stringify(compact) === JSON.stringify(input) ? null : compact
}
