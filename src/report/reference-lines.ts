import type { PlotArea } from "./chart-layout.js"
import { CHART_STYLE } from "./chart-style.js"
import type { LinearScale } from "./linear-scale.js"
import { svgElement, svgText } from "./svg-element.js"

/** A labelled horizontal line across the plot, e.g. the context window or the execute threshold. */
export type ReferenceLine = { y: number; label: string }

/**
 * Dashed reference lines with their labels at the plot's right end, just above the line (below it at the very top).
 * A label that would sit on top of the previous one moves to the left end. Lines outside the y domain are skipped.
 */
export function referenceLineElements(options: {
  plot: PlotArea
  scale: LinearScale
  lines: readonly ReferenceLine[]
}): string[] {
  const { plot, scale } = options
  const size = CHART_STYLE.tickSize
  const bottom = plot.top + plot.height
  const visible = options.lines
    .map((line) => ({ label: line.label, pixel: scale(line.y) }))
    .filter((line) => line.pixel >= plot.top - 0.5 && line.pixel <= bottom + 0.5)
    .sort((a, b) => a.pixel - b.pixel)
  const placedRight: number[] = []
  return visible.map((line) => {
    const baseline = line.pixel - 4 - size < plot.top ? line.pixel + size + 2 : line.pixel - 4
    const crowded = placedRight.some((other) => Math.abs(other - baseline) < size + 2)
    if (!crowded) placedRight.push(baseline)
    const label = crowded
      ? { x: plot.left + 4, y: baseline, "text-anchor": "start" }
      : { x: plot.left + plot.width - 4, y: baseline, "text-anchor": "end" }
    const rule = { x1: plot.left, y1: line.pixel, x2: plot.left + plot.width, y2: line.pixel }
    return svgElement("g", { "font-size": size, fill: CHART_STYLE.referenceColor }, [
      svgElement("line", {
        ...rule,
        stroke: CHART_STYLE.referenceColor,
        "stroke-width": 1.25,
        "stroke-dasharray": "6 4",
      }),
      // A white halo keeps the label legible where it crosses a series.
      svgText({ ...label, stroke: "#ffffff", "stroke-width": 3, "paint-order": "stroke" }, line.label),
    ])
  })
}
