import type { Transcript } from "./turn-model.js"

/**
 * The lines that say what an import skipped, for a command's stderr: source records of a type the importer does not
 * read, with their counts, and lines a command printed before the transcript; none when it skipped nothing. What is
 * skipped is never a reason to refuse a file, and never silent either: a replay of such a file may differ from what
 * the live model saw.
 */
export function skippedInputLines(file: string, transcript: Pick<Transcript, "skippedRecords" | "skippedLeadingLines">): string[] {
  const lines: string[] = []
  const leading = transcript.skippedLeadingLines ?? []
  if (leading.length > 0) {
    const first = leading[0] as string
    const shown = first.length > 60 ? `${first.slice(0, 59)}…` : first
    lines.push(`${file}: ${leading.length} line${leading.length === 1 ? "" : "s"} before the transcript that ${leading.length === 1 ? "is" : "are"} not JSON, skipped (first: "${shown}")`)
  }
  const entries = Object.entries(transcript.skippedRecords ?? {}).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
  if (entries.length > 0) {
    const total = entries.reduce((sum, [, count]) => sum + count, 0)
    const listed = entries.map(([type, count]) => `${type} (${count})`).join(", ")
    lines.push(`${file}: ${total} record${total === 1 ? "" : "s"} of a type the importer does not read, skipped: ${listed}`)
  }
  return lines
}
