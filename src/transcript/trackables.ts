import { isInlinedFile, type HostMessage } from "./host-message.js"

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
  const fileRunOwner = new Map<string, string>()
  parts.forEach((part, index) => {
    if (part.type !== "file" || !isInlinedFile(part)) return
    for (let cursor = index - 1; cursor >= 0; cursor -= 1) {
      const previous = parts[cursor]
      if (!previous || previous.type !== "text" || !previous.synthetic) break
      fileRunOwner.set(previous.id, part.id)
    }
  })

  const carrier = messageCarrier(parts, fileRunOwner)
  const trackables: Trackable[] = []
  for (const [index, part] of parts.entries()) {
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
      const first = firstRunPart(parts, index, fileRunOwner)
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

function firstRunPart(parts: HostMessage["parts"], fileIndex: number, owner: Map<string, string>): string | null {
  const fileId = parts[fileIndex]?.id
  let first: string | null = null
  for (let cursor = fileIndex - 1; cursor >= 0; cursor -= 1) {
    const candidate = parts[cursor]
    if (!candidate || owner.get(candidate.id) !== fileId) break
    first = candidate.id
  }
  return first
}
