import type { Breakdown } from "../render/measure-prompt.js"
import type { HistoryMeasure } from "./measure-history.js"

export type SegmentKey = "fixed" | "ledger" | "history" | "conversation" | "protected" | "tool"

/** Where a prompt's tokens go, in the order the status report and the sidebar panel draw them. */
export const SEGMENTS: readonly { key: SegmentKey; label: string; char: string }[] = [
  { key: "fixed", label: "fixed prompt", char: "F" },
  { key: "ledger", label: "pinned ledger", char: "L" },
  { key: "history", label: "compartment history", char: "H" },
  { key: "conversation", label: "settled conversation", char: "C" },
  { key: "protected", label: "protected recent work", char: "P" },
  { key: "tool", label: "tool output", char: "T" },
]

/** The character of free space in a bar. */
export const FREE_CHAR = "."

/**
 * A pass's breakdown by segment: the history line split into the pinned ledger (estimated, see HistoryMeasure) and
 * the compartment history, when the pass rendered the applied history.
 */
export function breakdownSegments(breakdown: Breakdown, history: HistoryMeasure | null): Record<SegmentKey, number> {
  const ledger = history && breakdown.history > 0 ? Math.min(history.ledgerTokens, breakdown.history) : 0
  return {
    fixed: breakdown.fixed,
    ledger,
    history: breakdown.history - ledger,
    conversation: breakdown.conversation,
    protected: breakdown.protected,
    tool: breakdown.tool,
  }
}

/**
 * A proportional bar of `width` cells, one per `window / width` tokens: each segment's character where its tokens
 * fall, `.` for free space. Cells are rounded at the segments' running totals, so the bar adds up to the prompt.
 */
export function segmentBar(segments: Record<SegmentKey, number>, window: number, width: number): string {
  let used = 0
  let text = ""
  for (const segment of SEGMENTS) {
    const cells = Math.round(((used + segments[segment.key]) / window) * width) - Math.round((used / window) * width)
    text += segment.char.repeat(Math.max(0, cells))
    used += segments[segment.key]
  }
  return text.slice(0, width).padEnd(width, FREE_CHAR)
}
