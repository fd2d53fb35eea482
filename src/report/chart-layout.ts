import { legendWidth } from "./chart-legend.js"
import { CHART_STYLE } from "./chart-style.js"
import { svgText } from "./svg-element.js"
import { estimateTextWidth, truncateText } from "./text-width.js"

/** The rectangle the data is drawn in, in pixels from the document's top-left corner. */
export type PlotArea = { left: number; top: number; width: number; height: number }

/** Where a chart's plot and legend go. */
export type ChartLayout = { plot: PlotArea; legend: { x: number; y: number } | undefined }

/** A chart's pixel size from its spec: the house default, and never non-finite, tiny or huge. */
export function chartSize(spec: { width?: number; height?: number }): { width: number; height: number } {
  return { width: sizeWithin(spec.width, CHART_STYLE.width), height: sizeWithin(spec.height, CHART_STYLE.height) }
}

/**
 * Margins sized from the text around the plot (title, axis labels, the widest y tick label, half the last x tick
 * label) and a legend to the right of the plot, so labels never overlap the axes and the legend never covers data.
 */
export function chartLayout(options: {
  width: number
  height: number
  title: string
  xLabel?: string | undefined
  yLabel?: string | undefined
  yTickLabels: readonly string[]
  xTickLabels: readonly string[]
  legendLabels: readonly string[]
}): ChartLayout {
  const { tickSize, labelSize } = CHART_STYLE
  const widest = (labels: readonly string[]): number =>
    labels.reduce((max, label) => Math.max(max, estimateTextWidth(label, tickSize)), 0)
  const firstXOverhang = estimateTextWidth(options.xTickLabels[0] ?? "", tickSize) / 2
  const lastXOverhang = estimateTextWidth(options.xTickLabels[options.xTickLabels.length - 1] ?? "", tickSize) / 2
  const top = options.title === "" ? 16 : 44
  const left = Math.max(
    12 + (options.yLabel ? labelSize + 8 : 0) + widest(options.yTickLabels) + 8,
    firstXOverhang + 12,
  )
  const bottom = 14 + tickSize + 8 + (options.xLabel ? labelSize + 10 : 0)
  const legend = legendWidth(options.legendLabels)
  const right = 16 + lastXOverhang + (legend > 0 ? legend + 16 : 0)
  const plot = {
    left,
    top,
    width: Math.max(40, options.width - left - right),
    height: Math.max(40, options.height - top - bottom),
  }
  if (legend === 0) return { plot, legend: undefined }
  return { plot, legend: { x: plot.left + plot.width + lastXOverhang + 16, y: plot.top } }
}

/** The visible heading, left-aligned above the plot and cut to the document's width. */
export function chartTitle(options: { width: number; title: string }): string {
  const text = truncateText({ text: options.title, maxWidth: options.width - 32, fontSize: CHART_STYLE.titleSize })
  const attributes = {
    x: 16,
    y: 28,
    "font-size": CHART_STYLE.titleSize,
    "font-weight": 600,
    fill: CHART_STYLE.textColor,
  }
  return svgText(attributes, text)
}

function sizeWithin(value: number | undefined, fallback: number): number {
  if (value === undefined || !Number.isFinite(value)) return fallback
  return Math.round(Math.min(4000, Math.max(200, value)))
}
