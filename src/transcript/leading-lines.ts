/**
 * Lines a command printed before the transcript itself (`opencode export` run in a terminal and redirected writes
 * "Exporting session: ses_…" first): every non-blank line before the first one that opens a JSON value. They are
 * blanked, not cut, so the records after them keep their line numbers (a JSONL turn is its line).
 */
export function blankLeadingLines(text: string): { text: string; skipped: string[] } {
  const skipped: string[] = []
  let start = 0
  while (start < text.length) {
    const end = text.indexOf("\n", start)
    const line = text.slice(start, end === -1 ? text.length : end).trim()
    if (line.startsWith("{") || line.startsWith("[")) break
    if (line !== "") skipped.push(line)
    if (end === -1) return { text, skipped: [] }
    start = end + 1
  }
  if (skipped.length === 0) return { text, skipped }
  const blanked = text.slice(0, start).replace(/[^\n]/g, "")
  return { text: blanked + text.slice(start), skipped }
}
