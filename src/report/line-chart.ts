import type { TopLevelSpec } from "vega-lite"
import { chartFrame, chartSize, CHART_STYLE, axisFormat, type NumberFormat } from "./chart-theme.js"
import { downsamplePolyline, type Point } from "./downsample-polyline.js"
import { renderChart } from "./render-chart.js"

/** One line: a name for the legend and its points, in any order (drawn sorted by x). */
export type LineSeries = { name: string; points: readonly Point[] }

/** A horizontal line across the plot at `y` (the window, the execute threshold), labelled at its right end. */
export type ReferenceLine = { y: number; label: string }

/** A line chart: one line per series, in the palette's order, with reference lines and a legend. */
export type LineChartSpec = {
  title: string
  series: readonly LineSeries[]
  xLabel?: string
  yLabel?: string
  referenceLines?: readonly ReferenceLine[]
  /** Where the y axis ends (values above are clipped, reference lines above are left out); from the data otherwise. */
  yMax?: number
  xFormat?: NumberFormat
  yFormat?: NumberFormat
  width?: number
  height?: number
}

/**
 * The chart as a Vega-Lite spec. Each series is thinned to what its pixels can show first (downsamplePolyline, in
 * the plot's pixel space: at most two points per pixel column, so a one-call spike keeps its height), so a 10,000-call
 * session makes a small document. The y axis starts at zero and takes in the reference lines. Pure.
 */
export function lineChartSpec(spec: LineChartSpec): TopLevelSpec {
  const { width, height } = chartSize(spec)
  const finite = spec.series.flatMap((series) => series.points).filter((point) => Number.isFinite(point.x) && Number.isFinite(point.y))
  const xs = finite.map((point) => point.x)
  const xDomain: [number, number] = xs.length > 0 ? [Math.min(...xs), Math.max(...xs)] : [0, 1]
  const references = (spec.referenceLines ?? []).filter((line) => Number.isFinite(line.y) && (spec.yMax === undefined || line.y <= spec.yMax))
  const yTop = spec.yMax ?? Math.max(1, ...finite.map((point) => point.y), ...references.map((line) => line.y))
  const names = spec.series.map((series) => series.name)
  const values = spec.series.flatMap((series) =>
    thinned(series.points, { xDomain, yDomain: [0, yTop], width, height }).map((point) => ({ series: series.name, x: point.x, y: point.y })),
  )
  const x = {
    field: "x",
    type: "quantitative",
    title: spec.xLabel ?? null,
    scale: { domain: xDomain, nice: false, zero: false },
    axis: { ...axisFormat(spec.xFormat ?? "plain"), grid: true },
  } as const
  const y = {
    field: "y",
    type: "quantitative",
    title: spec.yLabel ?? null,
    scale: { domain: [0, yTop], nice: spec.yMax === undefined },
    axis: { ...axisFormat(spec.yFormat ?? "compact"), grid: true },
  } as const
  return {
    ...chartFrame({ title: spec.title, width, height }),
    layer: [
      {
        data: { values },
        mark: { type: "line", clip: true, interpolate: "linear" },
        encoding: { x, y, color: { field: "series", type: "nominal", sort: names, scale: { domain: names } }, order: { field: "x" } },
      },
      ...(references.length === 0
        ? []
        : [
            {
              data: { values: references.map((line) => ({ y: line.y, label: line.label, x: xDomain[1] })) },
              layer: [
                { mark: { type: "rule", strokeDash: [6, 4], color: CHART_STYLE.referenceColor, strokeWidth: 1.2 }, encoding: { y } },
                {
                  mark: { type: "text", align: "right", baseline: "bottom", dy: -4, fontSize: 11, color: CHART_STYLE.referenceColor },
                  encoding: { x, y, text: { field: "label" } },
                },
              ],
            },
          ]),
    ],
  } as unknown as TopLevelSpec
}

/** The chart as an SVG document (renderChart). */
export function lineChart(spec: LineChartSpec): Promise<string> {
  return renderChart(lineChartSpec(spec))
}

/** A series' finite points sorted by x and thinned in the plot's pixel space; the points kept are the originals. */
function thinned(
  points: readonly Point[],
  frame: { xDomain: [number, number]; yDomain: [number, number]; width: number; height: number },
): Point[] {
  const sorted = points.filter((point) => Number.isFinite(point.x) && Number.isFinite(point.y)).sort((a, b) => a.x - b.x)
  const [x0, x1] = frame.xDomain
  const [y0, y1] = frame.yDomain
  const pixels = sorted.map((point, index) => ({
    x: x1 === x0 ? 0 : ((point.x - x0) / (x1 - x0)) * frame.width,
    y: y1 === y0 ? 0 : ((point.y - y0) / (y1 - y0)) * frame.height,
    index,
  }))
  return downsamplePolyline(pixels).map((pixel) => sorted[(pixel as (typeof pixels)[number]).index] as Point)
}
