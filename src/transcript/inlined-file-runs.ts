import { isInlinedFile, type HostPart, type HostTextPart } from "./host-message.js"

/**
 * The text an inlined file brought with it: OpenCode sends a text file (or a folder listing) attached to a message
 * as synthetic text parts directly before its file part, and those parts belong to the file. Per inlined file part
 * id, its run of those text parts in order (empty when none precede it). A media file's note before it is message
 * text, not a run: only inlined files own the text before them. The one definition every reader of a message's
 * files shares (trackables, ingest kinds, the live view, render, measure, item text).
 */
export function inlinedFileRuns(parts: readonly HostPart[]): Map<string, HostTextPart[]> {
  const runs = new Map<string, HostTextPart[]>()
  parts.forEach((part, index) => {
    if (part.type !== "file" || !isInlinedFile(part)) return
    const run: HostTextPart[] = []
    for (let cursor = index - 1; cursor >= 0; cursor -= 1) {
      const previous = parts[cursor]
      if (!previous || previous.type !== "text" || !previous.synthetic) break
      run.unshift(previous)
    }
    runs.set(part.id, run)
  })
  return runs
}
