import { chartSize, type PlotArea } from "./chart-layout.js"
import { CHART_STYLE } from "./chart-style.js"
import type { Point } from "./downsample-polyline.js"
import { formatValue, type NumberFormat } from "./format-number.js"
import { MARKER_SHAPES, markerElement, type MarkerShape } from "./marker-shape.js"
import { paletteColor } from "./palette.js"
import { placeLabels, type LabelAnchor } from "./place-labels.js"
import { polylinePath } from "./polyline-path.js"
import { svgDocument } from "./svg-document.js"
import { svgElement, svgText } from "./svg-element.js"
import { valueExtent, type ValueExtent } from "./value-extent.js"
import { xyFrame, type AxisRange } from "./xy-frame.js"

/** One labelled point, e.g. a policy's operating point (mean prompt tokens, survival) in the series of its window. */
export type ScatterPoint = { x: number; y: number; label: string; series: string }

/** What a scatter chart shows. */
export type ScatterChartSpec = {
  title: string
  /** Non-finite points are skipped. Series take colours and marker shapes in order of first appearance. */
  points: readonly ScatterPoint[]
  /** Join each series' points with a line, in order of x. */
  connectSeries?: boolean
  xLabel?: string
  yLabel?: string
  /** Tick formats; both default to "compact" (48k, 1.2M). */
  xFormat?: NumberFormat
  yFormat?: NumberFormat
  /** Fixed axis bounds, e.g. `yMin: 0, yMax: 1` for a survival rate. By default the data plus a 5% margin. */
  xMin?: number
  xMax?: number
  yMin?: number
  yMax?: number
  width?: number
  height?: number
}

/** A scatter chart as an SVG document, each point labelled beside its marker where the label overlaps least. */
export function scatterChart(spec: ScatterChartSpec): string {
  const { width, height } = chartSize(spec)
  const points = spec.points.filter((point) => Number.isFinite(point.x) && Number.isFinite(point.y))
  const names = [...new Set(points.map((point) => point.series))]
  const styleOf = (series: string): { color: string; shape: MarkerShape } => {
    const index = Math.max(0, names.indexOf(series))
    return { color: paletteColor(index), shape: MARKER_SHAPES[index % MARKER_SHAPES.length] ?? "circle" }
  }
  const xFormat = spec.xFormat ?? "compact"
  const yFormat = spec.yFormat ?? "compact"
  const frame = xyFrame({
    width,
    height,
    title: spec.title,
    x: axisRange({
      extent: valueExtent(points.map((point) => point.x)),
      fixedMin: spec.xMin,
      fixedMax: spec.xMax,
      label: spec.xLabel,
      format: xFormat,
    }),
    y: axisRange({
      extent: valueExtent(points.map((point) => point.y)),
      fixedMin: spec.yMin,
      fixedMax: spec.yMax,
      label: spec.yLabel,
      format: yFormat,
    }),
    legend: names.map((name) => ({ label: name, color: styleOf(name).color, swatch: styleOf(name).shape })),
  })
  const pixelOf = (point: ScatterPoint): Point => ({ x: frame.xScale(point.x), y: frame.yScale(point.y) })
  const connectors = spec.connectSeries
    ? names.flatMap((series) => connector({ points, series, color: styleOf(series).color, pixelOf }))
    : []
  const markers = points.map((point) => {
    const position = `${formatValue(point.x, xFormat)}, ${formatValue(point.y, yFormat)}`
    const tooltip = `${point.label} (${point.series}): ${position}`
    return markerElement({ ...styleOf(point.series), ...pixelOf(point), radius: MARKER_RADIUS, tooltip })
  })
  const visible = labelAnchors(
    points.map((point) => ({ ...pixelOf(point), text: point.label })),
    frame.plot,
  )
  const labels = placeLabels({
    anchors: visible,
    plot: frame.plot,
    fontSize: CHART_STYLE.pointLabelSize,
    markerRadius: MARKER_RADIUS,
  }).map((label) => svgText({ x: label.x, y: label.y, "text-anchor": label.textAnchor }, label.text))
  const labelGroup = svgElement("g", { "font-size": CHART_STYLE.pointLabelSize, fill: CHART_STYLE.textColor }, labels)
  const data = svgElement("g", { "clip-path": frame.clipPath }, [...connectors, ...markers])
  return svgDocument({ width, height, title: spec.title, children: [...frame.elements, data, labelGroup] })
}

const MARKER_RADIUS = 4.5

/** A fixed bound wins; otherwise the data's extent widened by 5% so no marker sits on an axis. */
function axisRange(options: Omit<AxisRange, "min" | "max"> & { extent: ValueExtent }): AxisRange {
  const { extent, ...rest } = options
  const margin = (extent.max - extent.min) * 0.05
  return { ...rest, min: extent.min - margin, max: extent.max + margin }
}

/**
 * The labels worth drawing: only for points inside the plot (a point beyond a fixed bound is clipped, and its label
 * must not float alone), and once for points that coincide with the same label (e.g. the unreduced policy in every
 * window), which would otherwise print the same word three times over.
 */
function labelAnchors(anchors: readonly LabelAnchor[], plot: PlotArea): LabelAnchor[] {
  const seen = new Set<string>()
  return anchors.filter((anchor) => {
    const key = `${Math.round(anchor.x)} ${Math.round(anchor.y)} ${anchor.text}`
    if (!insidePlot(anchor, plot) || seen.has(key)) return false
    seen.add(key)
    return true
  })
}

function insidePlot(point: Point, plot: PlotArea): boolean {
  const inside = (value: number, start: number, length: number): boolean =>
    value >= start - 0.5 && value <= start + length + 0.5
  return inside(point.x, plot.left, plot.width) && inside(point.y, plot.top, plot.height)
}

/** The line through one series' points, in order of x. */
function connector(options: {
  points: readonly ScatterPoint[]
  series: string
  color: string
  pixelOf: (point: ScatterPoint) => Point
}): string[] {
  const { points, series, color, pixelOf } = options
  const members = points.filter((point) => point.series === series).sort((a, b) => a.x - b.x)
  if (members.length < 2) return []
  const d = polylinePath(members.map(pixelOf))
  return [svgElement("path", { d, fill: "none", stroke: color, "stroke-width": 1.5, "stroke-opacity": 0.6 })]
}
