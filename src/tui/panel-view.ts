import type { TuiThemeCurrent } from "@opencode-ai/plugin/tui"
import { createElement, insert, setProp } from "@opentui/solid"
import type { JSX } from "solid-js"
import type { PanelLine, PanelTone } from "../status/sidebar-panel.js"

type Color = TuiThemeCurrent["text"]

/** The theme color of each tone: the bar's segments in distinct accents, free space and the key in muted text. */
function colorOf(tone: PanelTone, theme: TuiThemeCurrent): Color {
  switch (tone) {
    case "title":
    case "text":
      return theme.text
    case "muted":
    case "free":
      return theme.textMuted
    case "warning":
      return theme.warning
    case "error":
    case "threshold":
      return theme.error
    case "fixed":
      return theme.secondary
    case "ledger":
      return theme.accent
    case "history":
      return theme.info
    case "conversation":
      return theme.primary
    case "protected":
      return theme.success
    case "tool":
      return theme.warning
  }
}

/**
 * The panel's lines as OpenTUI elements, one `text` per line and a `span` per run of one tone, rebuilt whenever
 * `lines` or the theme changes. Built with the Solid renderer's functions rather than JSX, so the package compiles
 * with tsc alone; OpenCode maps `@opentui/solid` and `solid-js` to its own instances when it loads the file.
 */
export function panelView(lines: () => readonly PanelLine[], theme: () => TuiThemeCurrent): JSX.Element {
  const box = createElement("box")
  insert(box, () => lines().map((line) => lineView(line, theme())))
  return box as unknown as JSX.Element
}

function lineView(line: PanelLine, theme: TuiThemeCurrent): unknown {
  const text = createElement("text")
  setProp(text, "fg", theme.text)
  for (const part of line) {
    const span = createElement("span")
    setProp(span, "style", { fg: colorOf(part.tone, theme), bold: part.tone === "title" })
    insert(span, part.text)
    insert(text, span)
  }
  return text
}
