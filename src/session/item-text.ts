import { inlinedFileRuns } from "../transcript/inlined-file-runs.js"
import type { TagRecord } from "./session-state.js"
import type { HostPart } from "../transcript/host-message.js"
import { partText } from "../transcript/part-content.js"

/**
 * The text a tagged item holds, as the model read it before any reduction: a message's own text parts, a tool's
 * call and result, a file's inlined content. Used to expand a dropped tag and to pin a tag verbatim.
 */
export function itemText(options: { tag: TagRecord; parts: readonly HostPart[] }): string {
  const { tag, parts } = options
  if (tag.kind === "tool") {
    const part = parts.find((candidate) => candidate.id === tag.partId)
    if (!part) return ""
    const { call, content } = partText(part)
    return `${call}\n${content}`
  }
  const runs = inlinedFileRuns(parts)
  if (tag.kind === "file") {
    return (runs.get(tag.partId) ?? []).map((part) => (part.type === "text" ? part.text : "")).join("\n")
  }
  const inRuns = new Set([...runs.values()].flat().map((part) => part.id))
  return parts
    .filter((part) => part.type === "text" && !part.ignored && !inRuns.has(part.id))
    .map((part) => (part.type === "text" ? part.text : ""))
    .join("\n")
}
