import { formatStatus } from "../status/format-status.js"
import { panelText, sidebarPanel, type PanelInput } from "../status/sidebar-panel.js"

/** What the /ctx-status dialog shows: the session's report, or why there is none. */
export type StatusDialogInput = PanelInput | { readonly kind: "no-session-open" }

/** The dialog's text when no session is on screen (the home screen has no session to report). */
export const NO_SESSION_OPEN = "No session is open: /ctx-status reports the session on screen. Open or start one first."

/** The dialog's title when there is no report (the report's own first line is the title otherwise). */
export const STATUS_DIALOG_TITLE = "magic-context status"

/**
 * The /ctx-status dialog's title and lines: the status report as `magic-context status` prints it (one place for its
 * content: format-status), its first line the title, or the sidebar's own sentence for a store or session with
 * nothing to report, every line broken to `width` columns. A long line continues under its own indentation plus
 * two, so the report's aligned rows stay readable in a narrow terminal. Pure.
 */
export function statusDialogLines(input: StatusDialogInput, options: { now: number; width: number }): { title: string; lines: string[] } {
  const width = Math.max(MIN_WIDTH, options.width)
  if (input.kind === "no-session-open") return { title: STATUS_DIALOG_TITLE, lines: wrapLine(NO_SESSION_OPEN, width) }
  if (input.kind !== "status") {
    // The sidebar's sentence for the case, without the sidebar's title.
    return { title: STATUS_DIALOG_TITLE, lines: panelText(sidebarPanel(input, { now: options.now, width }).slice(1)).split("\n") }
  }
  const [title = STATUS_DIALOG_TITLE, ...rest] = formatStatus(input.status, options.now).split("\n")
  const body = rest[0] === "" ? rest.slice(1) : rest
  return { title: wrapLine(title, width)[0] ?? title, lines: body.flatMap((line) => wrapLine(line, width)) }
}

/** Below this the hanging indentation would leave no room for text. */
const MIN_WIDTH = 20

/** `line` broken at spaces into rows of at most `width` columns; continuation rows indented two past the line's own. */
function wrapLine(line: string, width: number): string[] {
  if (columns(line) <= width) return [line]
  const indent = " ".repeat(Math.min(leadingSpaces(line) + 2, Math.floor(width / 2)))
  const rows: string[] = []
  let row = " ".repeat(leadingSpaces(line))
  let empty = true
  for (const word of line.trimStart().split(" ")) {
    const next = empty ? row + word : `${row} ${word}`
    if (columns(next) <= width) {
      row = next
      empty = false
      continue
    }
    if (!empty) {
      rows.push(row)
      row = indent
    }
    row += word
    empty = false
    // A word longer than a row is cut into pieces of a row each.
    while (columns(row) > width) {
      const chars = [...row]
      rows.push(chars.slice(0, width).join(""))
      row = indent + chars.slice(width).join("")
    }
  }
  rows.push(row)
  return rows
}

function columns(text: string): number {
  return [...text].length
}

function leadingSpaces(line: string): number {
  return line.length - line.trimStart().length
}
