import type { TuiThemeCurrent } from "@opencode-ai/plugin/tui"
import { createElement, insert, setProp } from "@opentui/solid"
import { onMount, type JSX } from "solid-js"

/** Columns the dialog's frame takes from its width: the padding on either side and the scrollbar. */
export const DIALOG_FRAME_COLUMNS = 6

/** Rows the dialog takes besides the report: the title row and the blank under it, the key line, the blanks. */
export const DIALOG_FRAME_ROWS = 6

/**
 * The /ctx-status dialog's content: the title with `esc` at the right, the report's lines in a scroll box that has the
 * keyboard (arrows, page keys, the wheel) when it is taller than `height` rows, and a key line under it. Built with
 * the Solid renderer's functions (no JSX), as the sidebar panel is.
 */
export function statusDialogView(options: {
  title: string
  lines: readonly string[]
  /** The rows the report may take before it scrolls. */
  height: number
  theme: TuiThemeCurrent
}): JSX.Element {
  const { lines, theme } = options
  const scrolls = lines.length > options.height
  const frame = createElement("box")
  setProp(frame, "flexDirection", "column")
  setProp(frame, "paddingLeft", 2)
  setProp(frame, "paddingRight", 2)
  setProp(frame, "paddingBottom", 1)

  const header = createElement("box")
  setProp(header, "flexDirection", "row")
  setProp(header, "justifyContent", "space-between")
  setProp(header, "paddingBottom", 1)
  insert(header, textOf(options.title, theme.text, true))
  insert(header, textOf("esc", theme.textMuted, false))
  insert(frame, header)

  const report = createElement("scrollbox")
  setProp(report, "height", Math.max(1, Math.min(lines.length, options.height)))
  setProp(report, "scrollY", true)
  for (const line of lines) insert(report, textOf(line === "" ? " " : line, toneOf(line, theme), false))
  insert(frame, report)

  const keys = scrolls ? `${lines.length} lines · ↑↓ PgUp PgDn scroll · esc close` : "esc close"
  const footer = createElement("box")
  setProp(footer, "paddingTop", 1)
  insert(footer, textOf(keys, theme.textMuted, false))
  insert(frame, footer)

  // The scroll box takes the keyboard once it is on screen (the dialog blurred the prompt when it opened).
  onMount(() => {
    if (scrolls) (report as unknown as { focus(): void }).focus()
  })
  return frame as unknown as JSX.Element
}

/** Warnings and errors of the report in their theme colors, the rest in the text color. */
function toneOf(line: string, theme: TuiThemeCurrent): TuiThemeCurrent["text"] {
  const text = line.trimStart()
  if (text.startsWith("!") || text.startsWith("Recent internal errors (")) return theme.error
  if (text.startsWith("Config problems")) return theme.warning
  return theme.text
}

function textOf(content: string, color: TuiThemeCurrent["text"], bold: boolean): unknown {
  const text = createElement("text")
  setProp(text, "fg", color)
  setProp(text, "wrapMode", "none")
  if (!bold) {
    insert(text, content)
    return text
  }
  const span = createElement("span")
  setProp(span, "style", { fg: color, bold: true })
  insert(span, content)
  insert(text, span)
  return text
}
