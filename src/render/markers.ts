import type { TagRecord } from "../session/session-state.js"
import { toolPath } from "../session/host-tools.js"
import type { HostPart } from "../transcript/host-message.js"

/**
 * The small marker a dropped item leaves in the prompt. A pure function of the stored tag, so it renders the same
 * bytes on every pass; the raw content stays in the store.
 */
export function dropMarker(options: { tag: TagRecord; label: string; tagsVisible: boolean; supersededPath: string | null }): string {
  const { tag, label, tagsVisible, supersededPath } = options
  const name = tagsVisible ? `§${tag.tag}§ ` : ""
  if (tag.droppedReason === "superseded" && tag.supersededBy !== null) {
    const newer = tagsVisible ? `; the newest edit of it is §${tag.supersededBy}§` : ""
    return `[superseded ${name}${label}${supersededPath ? ` of ${supersededPath}` : ""}${newer}]`
  }
  return `[dropped ${name}${label}]`
}

/** What a dropped item was, in a few words: "read output", "message", "file notes.txt". */
export function itemLabel(tag: TagRecord, filename: string | null): string {
  if (tag.kind === "tool") return `${tag.tool ?? "tool"} output`
  if (tag.kind === "file") return filename ? `file ${filename}` : "file"
  return "message"
}

/** The file a tool part names first (the host tool table's `toolPath`; a superseded edit's marker), or null. */
export function editedPath(part: HostPart | undefined): string | null {
  if (!part || part.type !== "tool") return null
  return toolPath(part.tool, part.state.input as Record<string, unknown>)
}

/** Longest string value a dropped tool call keeps in its input, in characters. */
export const KEPT_INPUT_CHARS = 120

/**
 * The input a dropped tool call keeps: short values (paths, commands, patterns) stay, long ones (file contents, old
 * and new strings of an edit) become a note of their size. A pure function of the stored input.
 */
export function compactToolInput(input: Record<string, unknown>): Record<string, unknown> {
  const compact: Record<string, unknown> = {}
  for (const [key, value] of Object.entries(input)) {
    if (typeof value === "string") compact[key] = value.length <= KEPT_INPUT_CHARS ? value : `[${value.length} chars dropped]`
    else if (value !== null && typeof value === "object") {
      const json = JSON.stringify(value)
      compact[key] = json.length <= KEPT_INPUT_CHARS ? value : `[${json.length} chars dropped]`
    } else compact[key] = value
  }
  return compact
}
