import type { PlotArea } from "./chart-layout.js"
import { CHART_STYLE } from "./chart-style.js"
import { formatNumber, formatValue, type NumberFormat } from "./format-number.js"
import type { LinearScale } from "./linear-scale.js"
import { svgElement, svgText } from "./svg-element.js"

/** A numeric axis: its tick values, the scale placing them and how they read. */
export type NumericAxis = {
  plot: PlotArea
  ticks: readonly number[]
  scale: LinearScale
  format: NumberFormat
  label?: string | undefined
}

/** The bottom axis: vertical grid lines, the axis line, tick labels and the axis title centred below them. */
export function xAxisElements(axis: NumericAxis): string[] {
  const { plot, ticks, scale } = axis
  const bottom = plot.top + plot.height
  const grid = ticks.map(
    (tick) => `M${formatNumber(scale(tick), 1)} ${formatNumber(plot.top, 1)}V${formatNumber(bottom, 1)}`,
  )
  const labels = ticks.map((tick) =>
    svgText({ x: scale(tick), y: bottom + 8 + CHART_STYLE.tickSize }, formatValue(tick, axis.format)),
  )
  const titleY = bottom + 18 + CHART_STYLE.tickSize + CHART_STYLE.labelSize
  const title = axis.label ? [axisTitle({ x: plot.left + plot.width / 2, y: titleY }, axis.label)] : []
  return [
    ...gridElements(grid),
    axisLine({ x1: plot.left, y1: bottom, x2: plot.left + plot.width, y2: bottom }),
    tickLabelGroup("middle", labels),
    ...title,
  ]
}

/** The left axis: horizontal grid lines, the axis line, tick labels and the axis title turned to read upwards. */
export function yAxisElements(axis: NumericAxis): string[] {
  const { plot, ticks, scale } = axis
  const right = plot.left + plot.width
  const grid = ticks.map(
    (tick) => `M${formatNumber(plot.left, 1)} ${formatNumber(scale(tick), 1)}H${formatNumber(right, 1)}`,
  )
  const labels = ticks.map((tick) =>
    svgText({ x: plot.left - 6, y: scale(tick), dy: "0.35em" }, formatValue(tick, axis.format)),
  )
  const middle = plot.top + plot.height / 2
  const x = 10 + CHART_STYLE.labelSize
  const title = axis.label
    ? [axisTitle({ x, y: middle, transform: `rotate(-90 ${formatNumber(x)} ${formatNumber(middle)})` }, axis.label)]
    : []
  return [
    ...gridElements(grid),
    axisLine({ x1: plot.left, y1: plot.top, x2: plot.left, y2: plot.top + plot.height }),
    tickLabelGroup("end", labels),
    ...title,
  ]
}

function axisLine(ends: { x1: number; y1: number; x2: number; y2: number }): string {
  return svgElement("line", { ...ends, stroke: CHART_STYLE.axisColor })
}

function gridElements(segments: readonly string[]): string[] {
  if (segments.length === 0) return []
  return [svgElement("path", { d: segments.join(""), stroke: CHART_STYLE.gridColor, fill: "none" })]
}

function tickLabelGroup(anchor: "middle" | "end", labels: readonly string[]): string {
  const attributes = { "font-size": CHART_STYLE.tickSize, fill: CHART_STYLE.mutedTextColor, "text-anchor": anchor }
  return svgElement("g", attributes, labels)
}

function axisTitle(attributes: Readonly<Record<string, string | number>>, label: string): string {
  const style = { "font-size": CHART_STYLE.labelSize, fill: CHART_STYLE.textColor, "text-anchor": "middle" }
  return svgText({ ...attributes, ...style }, label)
}
