import { niceTicks } from "./axis-ticks.js"
import { xAxisElements, yAxisElements } from "./chart-axes.js"
import { chartLayout, chartTitle, type PlotArea } from "./chart-layout.js"
import { legendElement, type LegendEntry } from "./chart-legend.js"
import { formatValue, type NumberFormat } from "./format-number.js"
import { linearScale, type LinearScale } from "./linear-scale.js"
import { svgElement } from "./svg-element.js"

/** One numeric axis of an x–y chart: the data's extent, optional fixed bounds that override it, label and format. */
export type AxisRange = {
  min: number
  max: number
  fixedMin?: number | undefined
  fixedMax?: number | undefined
  label?: string | undefined
  format: NumberFormat
}

/** Everything an x–y chart draws around its data, and the scales and clip that place the data. */
export type XyFrame = {
  plot: PlotArea
  xScale: LinearScale
  yScale: LinearScale
  /** Title, clip path, grid, axes and legend, to come before the data. */
  elements: string[]
  /** The `clip-path` attribute value that keeps data inside the plot (with a few pixels' grace for strokes). */
  clipPath: string
}

/** The frame of a line, area or scatter chart: nice ticks on both axes, margins from their labels, a right legend. */
export function xyFrame(options: {
  width: number
  height: number
  title: string
  x: AxisRange
  y: AxisRange
  legend: readonly LegendEntry[]
}): XyFrame {
  const { width, height, title, x, y } = options
  const xTicks = axisTicks(x, Math.max(2, Math.round(width / 110)))
  const yTicks = axisTicks(y, Math.max(2, Math.round(height / 70)))
  const layout = chartLayout({
    width,
    height,
    title,
    xLabel: x.label,
    yLabel: y.label,
    xTickLabels: xTicks.values.map((tick) => formatValue(tick, x.format)),
    yTickLabels: yTicks.values.map((tick) => formatValue(tick, y.format)),
    legendLabels: options.legend.map((entry) => entry.label),
  })
  const { plot } = layout
  const xScale = linearScale({ domain: [xTicks.min, xTicks.max], range: [plot.left, plot.left + plot.width] })
  const yScale = linearScale({ domain: [yTicks.min, yTicks.max], range: [plot.top + plot.height, plot.top] })
  const clip = svgElement("clipPath", { id: CLIP_ID }, [
    svgElement("rect", { x: plot.left - 6, y: plot.top - 6, width: plot.width + 12, height: plot.height + 12 }),
  ])
  const elements = [
    ...(title === "" ? [] : [chartTitle({ width, title })]),
    svgElement("defs", {}, [clip]),
    ...xAxisElements({ plot, ticks: xTicks.values, scale: xScale, format: x.format, label: x.label }),
    ...yAxisElements({ plot, ticks: yTicks.values, scale: yScale, format: y.format, label: y.label }),
    ...(layout.legend === undefined ? [] : [legendElement({ ...layout.legend, entries: options.legend })]),
  ]
  return { plot, xScale, yScale, elements, clipPath: `url(#${CLIP_ID})` }
}

/** One id is enough: each chart is its own document (embedded with `<img>`), so ids cannot collide. */
const CLIP_ID = "plot-area"

/** Ticks for an axis; a fixed bound becomes the domain's edge and ticks beyond it are dropped. */
function axisTicks(axis: AxisRange, count: number): { min: number; max: number; values: number[] } {
  const ticks = niceTicks({ min: finiteOr(axis.fixedMin, axis.min), max: finiteOr(axis.fixedMax, axis.max), count })
  const min = finiteOr(axis.fixedMin, ticks.min)
  const max = finiteOr(axis.fixedMax, ticks.max)
  if (!(max > min)) return ticks
  const tolerance = ticks.step * 1e-6
  return { min, max, values: ticks.values.filter((tick) => tick >= min - tolerance && tick <= max + tolerance) }
}

function finiteOr(value: number | undefined, fallback: number): number {
  return value !== undefined && Number.isFinite(value) ? value : fallback
}
