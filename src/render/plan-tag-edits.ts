import type { TagRecord } from "../pass/session-state.js"
import type { HostMessage } from "../transcript/host-message.js"
import { tagPrefix } from "../transcript/tag-format.js"
import { listTrackables } from "../transcript/trackables.js"
import type { Edit } from "./edit.js"

/**
 * The edits that write each tagged item's `§N§` prefix into the prompt. A pure function of the messages and the
 * stored tags: the same inputs always give the same edits, so the rendered bytes never drift between passes.
 * Items without a stored tag (none, after ingest) are left untouched.
 */
export function planTagEdits(options: { messages: readonly HostMessage[]; tagsByPart: ReadonlyMap<string, TagRecord> }): Edit[] {
  const { messages, tagsByPart } = options
  const edits: Edit[] = []
  messages.forEach((message, messageIndex) => {
    const partIndex = new Map(message.parts.map((part, index) => [part.id, index]))
    for (const trackable of listTrackables(message)) {
      const tag = tagsByPart.get(trackable.partId)
      if (!tag) continue
      const prefix = tagPrefix(tag.tag)
      const target = partIndex.get(trackable.render.partId)
      if (target === undefined) continue
      switch (trackable.render.type) {
        case "text":
          edits.push({ type: "prefix-text", messageIndex, partIndex: target, partId: trackable.render.partId, prefix })
          break
        case "tool-output":
          edits.push({ type: "prefix-tool-output", messageIndex, partIndex: target, partId: trackable.render.partId, prefix })
          break
        case "before-file":
          edits.push({
            type: "insert-text",
            messageIndex,
            partIndex: target,
            beforePartId: trackable.render.partId,
            newPartId: `${trackable.partId}-tag`,
            text: prefix,
          })
          break
      }
    }
  })
  return edits
}
