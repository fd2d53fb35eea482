import type { PlotArea } from "./chart-layout.js"
import type { Point } from "./downsample-polyline.js"
import { estimateTextWidth } from "./text-width.js"

/** A label to put next to a marker at (x, y), in pixels. */
export type LabelAnchor = { x: number; y: number; text: string }

/** Where a label's text goes: its baseline point and which end of the text that point is. */
export type PlacedLabel = { x: number; y: number; textAnchor: "start" | "middle" | "end"; text: string }

/**
 * Labels beside their markers, placed greedily in the given order: each takes the first of right, left, above,
 * below and the four diagonals that overlaps no label placed so far, no marker and nothing outside the plot, or
 * failing that the position with the least overlap. Deterministic, and good enough for a few dozen points.
 */
export function placeLabels(options: {
  anchors: readonly LabelAnchor[]
  plot: PlotArea
  fontSize: number
  markerRadius: number
}): PlacedLabel[] {
  const { plot, fontSize, markerRadius } = options
  const markers = options.anchors.map((anchor) => boxAround(anchor, markerRadius))
  const placed: Box[] = []
  return options.anchors.map((anchor) => {
    const candidates = candidatesFor(anchor, estimateTextWidth(anchor.text, fontSize), fontSize, markerRadius + 3)
    const scored = candidates.map((candidate) => ({
      candidate,
      cost:
        [...placed, ...markers].reduce((sum, box) => sum + overlapArea(candidate.box, box), 0) +
        outsideArea(candidate.box, plot) * 4,
    }))
    const best = scored.reduce((winner, entry) => (entry.cost < winner.cost ? entry : winner))
    placed.push(best.candidate.box)
    return { ...best.candidate.label, text: anchor.text }
  })
}

type Box = { left: number; top: number; right: number; bottom: number }
type Candidate = { box: Box; label: Omit<PlacedLabel, "text"> }

function candidatesFor(anchor: Point, width: number, height: number, gap: number): [Candidate, ...Candidate[]] {
  // The baseline sits 0.8 em below the box top, which centres the glyphs' x-height on the box.
  const at = (left: number, top: number, textAnchor: PlacedLabel["textAnchor"]): Candidate => {
    const x = textAnchor === "start" ? left : textAnchor === "end" ? left + width : left + width / 2
    return {
      box: { left, top, right: left + width, bottom: top + height },
      label: { x, y: top + height * 0.8, textAnchor },
    }
  }
  const middle = anchor.y - height / 2
  return [
    at(anchor.x + gap, middle, "start"),
    at(anchor.x - gap - width, middle, "end"),
    at(anchor.x - width / 2, anchor.y - gap - height, "middle"),
    at(anchor.x - width / 2, anchor.y + gap, "middle"),
    at(anchor.x + gap * 0.7, anchor.y - gap * 0.7 - height, "start"),
    at(anchor.x + gap * 0.7, anchor.y + gap * 0.7, "start"),
    at(anchor.x - gap * 0.7 - width, anchor.y - gap * 0.7 - height, "end"),
    at(anchor.x - gap * 0.7 - width, anchor.y + gap * 0.7, "end"),
  ]
}

function boxAround(point: Point, radius: number): Box {
  return { left: point.x - radius, top: point.y - radius, right: point.x + radius, bottom: point.y + radius }
}

function overlapArea(a: Box, b: Box): number {
  const width = Math.min(a.right, b.right) - Math.max(a.left, b.left)
  const height = Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top)
  return width > 0 && height > 0 ? width * height : 0
}

function outsideArea(box: Box, plot: PlotArea): number {
  const area = (box.right - box.left) * (box.bottom - box.top)
  const inside = overlapArea(box, {
    left: plot.left,
    top: plot.top,
    right: plot.left + plot.width,
    bottom: plot.top + plot.height,
  })
  return area - inside
}
