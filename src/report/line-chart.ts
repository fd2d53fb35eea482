import { chartSize } from "./chart-layout.js"
import { downsamplePolyline, type Point } from "./downsample-polyline.js"
import type { NumberFormat } from "./format-number.js"
import { markerElement } from "./marker-shape.js"
import { paletteColor } from "./palette.js"
import { polylinePath } from "./polyline-path.js"
import { referenceLineElements, type ReferenceLine } from "./reference-lines.js"
import { svgDocument } from "./svg-document.js"
import { svgElement } from "./svg-element.js"
import { valueExtent } from "./value-extent.js"
import { xyFrame } from "./xy-frame.js"

/** One named line, e.g. a policy's prompt tokens per turn. Points need not be sorted; non-finite ones are skipped. */
export type LineSeries = { name: string; points: readonly Point[] }

/** What a line chart shows. */
export type LineChartSpec = {
  title: string
  /** Up to eight series get distinct colours; more repeat the palette. */
  series: readonly LineSeries[]
  xLabel?: string
  yLabel?: string
  /** Dashed horizontal lines, e.g. the window and the execute threshold; the y axis grows to show them. */
  referenceLines?: readonly ReferenceLine[]
  /** The top of the y axis; data above it is clipped. By default the nice tick above the data and reference lines. */
  yMax?: number
  /** Tick formats: x defaults to "plain" (turns: 1,000), y to "compact" (tokens: 48k, 1.2M). */
  xFormat?: NumberFormat
  yFormat?: NumberFormat
  width?: number
  height?: number
}

/**
 * A line chart as an SVG document. The y axis starts at zero (these are token counts, where a cropped axis misleads);
 * each series is downsampled in pixel space, so 10,000 points cost about as much as the plot is wide.
 */
export function lineChart(spec: LineChartSpec): string {
  const { width, height } = chartSize(spec)
  const series = spec.series.map((entry) => ({ name: entry.name, points: sortedFinitePoints(entry.points) }))
  const referenceLines = (spec.referenceLines ?? []).filter((line) => Number.isFinite(line.y))
  const xs = valueExtent(series.flatMap((entry) => entry.points.map((point) => point.x)))
  const ys = valueExtent([
    0,
    ...series.flatMap((entry) => entry.points.map((point) => point.y)),
    ...referenceLines.map((line) => line.y),
  ])
  const frame = xyFrame({
    width,
    height,
    title: spec.title,
    x: { ...xs, label: spec.xLabel, format: spec.xFormat ?? "plain" },
    y: { ...ys, fixedMax: spec.yMax, label: spec.yLabel, format: spec.yFormat ?? "compact" },
    legend: series.map((entry, index) => ({ label: entry.name, color: paletteColor(index), swatch: "line" as const })),
  })
  const lines = series.flatMap((entry, index) => {
    const pixels = entry.points.map((point) => ({ x: frame.xScale(point.x), y: frame.yScale(point.y) }))
    return seriesElements(downsamplePolyline(pixels), paletteColor(index), entry.name)
  })
  const data = svgElement(
    "g",
    { "clip-path": frame.clipPath, fill: "none", "stroke-width": 2, "stroke-linejoin": "round" },
    lines,
  )
  const references = referenceLineElements({ plot: frame.plot, scale: frame.yScale, lines: referenceLines })
  return svgDocument({ width, height, title: spec.title, children: [...frame.elements, data, ...references] })
}

/** A series' path, or a dot when it has a single point (a one-point path draws nothing). */
function seriesElements(pixels: readonly Point[], color: string, name: string): string[] {
  const only = pixels[0]
  if (only === undefined) return []
  if (pixels.length === 1) {
    return [markerElement({ shape: "circle", x: only.x, y: only.y, color, radius: 3, tooltip: name })]
  }
  return [svgElement("path", { d: polylinePath(pixels), stroke: color })]
}

function sortedFinitePoints(points: readonly Point[]): Point[] {
  // Array.prototype.sort is stable, so points sharing an x keep their given order.
  return points.filter((point) => Number.isFinite(point.x) && Number.isFinite(point.y)).sort((a, b) => a.x - b.x)
}
