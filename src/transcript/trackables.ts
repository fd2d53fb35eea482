import type { HostMessage } from "./host-message.js"
import { inlinedFileRuns } from "./inlined-file-runs.js"

export type TagKind = "message" | "tool" | "file"

/**
 * Something that gets a `§N§` tag. `partId` is the subject (the stable key of the tag); `render` says where the
 * prefix is written when the prompt is rendered.
 */
export type Trackable = {
  kind: TagKind
  partId: string
  tool: string | null
  render: TagPlacement
}

export type TagPlacement =
  /** Prefix this text part's text. */
  | { type: "text"; partId: string }
  /** Prefix the tool's output (or error text). */
  | { type: "tool-output"; partId: string }
  /** No text part carries the file: insert a small text part right before it. */
  | { type: "before-file"; partId: string }

/**
 * Lists the trackable items of one message, in part order:
 * - the message itself, on one text part (see `messageCarrier`);
 * - every tool part (its output);
 * - every file attachment. OpenCode inlines a text file as synthetic text parts directly before the file part;
 *   those parts belong to the file, and the file's tag is written on the first of them.
 */
export function listTrackables(message: HostMessage): Trackable[] {
  const parts = message.parts
  const runs = inlinedFileRuns(parts)
  const fileRunOwner = new Map<string, string>()
  for (const [fileId, run] of runs) for (const part of run) fileRunOwner.set(part.id, fileId)

  const carrier = messageCarrier(parts, fileRunOwner)
  const trackables: Trackable[] = []
  for (const part of parts) {
    if (part.type === "text") {
      if (part.id !== carrier) continue
      trackables.push({ kind: "message", partId: part.id, tool: null, render: { type: "text", partId: part.id } })
      continue
    }
    if (part.type === "tool") {
      trackables.push({ kind: "tool", partId: part.id, tool: part.tool, render: { type: "tool-output", partId: part.id } })
      continue
    }
    if (part.type === "file") {
      const first = runs.get(part.id)?.[0]?.id ?? null
      const render: TagPlacement = first ? { type: "text", partId: first } : { type: "before-file", partId: part.id }
      trackables.push({ kind: "file", partId: part.id, tool: null, render })
    }
  }
  return trackables
}

/**
 * The text part that carries the message's tag: the first non-empty, not ignored text part that is not a file's
 * inlined content, preferring text a person or the model wrote over synthetic text (reminders, continuations);
 * a message made only of synthetic text is tagged on its first synthetic part.
 */
function messageCarrier(parts: HostMessage["parts"], fileRunOwner: Map<string, string>): string | null {
  const candidates = parts.filter(
    (part) => part.type === "text" && !part.ignored && part.text.length > 0 && !fileRunOwner.has(part.id),
  )
  const authored = candidates.find((part) => part.type === "text" && !part.synthetic)
  return (authored ?? candidates[0])?.id ?? null
}
