/** One source line of a condensed episode brought back by reference: the episode, the tag of its part, the line. */
export type RecalledLine = { displayId: string; tag: number | null; text: string }

/** The heading of the history's section of recalled lines. */
export const RECALLED_HEADING = "## Recalled by reference"

/** The section of recalled lines (none: no section), as the history shows it. */
export function recalledSection(lines: readonly RecalledLine[]): string[] {
  if (lines.length === 0) return []
  return [
    RECALLED_HEADING,
    "Lines of condensed episodes that the recent conversation names again (ctx_expand on the tag gives the whole part):",
    ...lines.map(recalledLine),
  ]
}

/** How the history shows one recalled line. */
export function recalledLine(line: RecalledLine): string {
  return `- ${line.displayId}${line.tag === null ? "" : ` §${line.tag}§`}: ${line.text}`
}
