import type { Transcript } from "./turn-model.js"

/**
 * The line that says which source records an import skipped (a record type the importer does not read), with their
 * counts, for a command's stderr; null when it skipped none. A skipped type is never a reason to refuse a file, and
 * never silent either: a replay of such a file may differ from what the live model saw.
 */
export function skippedRecordsLine(file: string, transcript: Pick<Transcript, "skippedRecords">): string | null {
  const entries = Object.entries(transcript.skippedRecords ?? {}).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
  if (entries.length === 0) return null
  const total = entries.reduce((sum, [, count]) => sum + count, 0)
  const listed = entries.map(([type, count]) => `${type} (${count})`).join(", ")
  return `${file}: ${total} record${total === 1 ? "" : "s"} of a type the importer does not read, skipped: ${listed}`
}
