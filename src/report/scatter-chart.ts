import type { Spec as VegaSpec } from "vega"
import type { TopLevelSpec } from "vega-lite"
import { chartFrame, chartSize, CHART_STYLE, axisFormat, type NumberFormat } from "./chart-theme.js"
import { renderChart } from "./render-chart.js"

/** One point: where it is, the label written beside it, and the series that gives it its colour and shape. */
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
  /** Fixed axis bounds, e.g. `yMin: 0, yMax: 1` for a survival rate. By default the data, niced. */
  xMin?: number
  xMax?: number
  yMin?: number
  yMax?: number
  width?: number
  height?: number
}

/** The name Vega-Lite gives the points' mark (the unit's `name` plus `_marks`), which the labels are placed around. */
const POINTS = "points"
const SHAPES: readonly string[] = ["circle", "square", "triangle-up", "diamond", "cross", "triangle-down"]
const ANCHORS: readonly string[] = ["right", "left", "top", "bottom", "top-right", "top-left", "bottom-right", "bottom-left"]

/** The chart as a Vega-Lite spec: the points (and the series' lines), colour and shape by series. Pure. */
export function scatterChartSpec(spec: ScatterChartSpec): TopLevelSpec {
  const { width, height } = chartSize(spec)
  const values = spec.points
    .filter((point) => Number.isFinite(point.x) && Number.isFinite(point.y))
    .map((point) => ({ x: point.x, y: point.y, label: point.label, series: point.series }))
  const series = [...new Set(values.map((point) => point.series))]
  // Some room around the data so a point on a bound (a rate of 100%) is not cut in half by the plot's edge.
  const bounds = (min: number | undefined, max: number | undefined) => ({
    zero: false,
    padding: 14,
    ...(min === undefined ? {} : { domainMin: min }),
    ...(max === undefined ? {} : { domainMax: max }),
  })
  const encoding = {
    x: { field: "x", type: "quantitative", title: spec.xLabel ?? null, scale: bounds(spec.xMin, spec.xMax), axis: { ...axisFormat(spec.xFormat ?? "compact"), grid: true } },
    y: { field: "y", type: "quantitative", title: spec.yLabel ?? null, scale: bounds(spec.yMin, spec.yMax), axis: { ...axisFormat(spec.yFormat ?? "compact"), grid: true } },
    color: { field: "series", type: "nominal", sort: series, scale: { domain: series } },
  } as const
  return {
    ...chartFrame({ title: spec.title, width, height }),
    data: { values },
    layer: [
      ...(spec.connectSeries ? [{ mark: { type: "line", strokeWidth: 1.5, opacity: 0.6 }, encoding: { ...encoding, order: { field: "x" } } }] : []),
      {
        name: POINTS,
        mark: { type: "point", filled: true, size: 70, opacity: 1 },
        encoding: { ...encoding, shape: { field: "series", type: "nominal", sort: series, scale: { domain: series, range: SHAPES } } },
      },
    ],
  } as unknown as TopLevelSpec
}

/**
 * Adds each point's label beside it, placed by Vega's label transform where it overlaps no other label and no other
 * point's centre (right of the point first, then left, above, below and the corners); a label that fits nowhere is
 * left out. The labels read the points' data rather than their mark: placing around a mark's drawn shape needs a
 * canvas, which a headless render has not.
 */
export function labelPoints(compiled: VegaSpec): VegaSpec {
  const points = (compiled.marks ?? []).find((mark) => mark.name === `${POINTS}_marks`)
  const from = points && "from" in points ? points.from : undefined
  if (!from?.data) return compiled
  return {
    ...compiled,
    marks: [
      ...(compiled.marks ?? []),
      {
        type: "text",
        from: { data: from.data },
        encode: {
          enter: {
            x: { scale: "x", field: "x" },
            y: { scale: "y", field: "y" },
            text: { field: "label" },
            font: { value: CHART_STYLE.fontFamily },
            fontSize: { value: 11 },
            fill: { value: CHART_STYLE.textColor },
          },
        },
        transform: [
          {
            type: "label",
            size: { signal: "[width, height]" },
            // Close to the point first; then the same sides further out, for a crowded corner of the chart.
            anchor: [...ANCHORS, ...ANCHORS],
            offset: [8, 8, 6, 6, 5, 5, 5, 5, 18, 18, 16, 16, 14, 14, 14, 14],
          },
        ],
      },
    ],
  } as VegaSpec
}

/** The chart as an SVG document (renderChart), its points labelled (labelPoints). */
export function scatterChart(spec: ScatterChartSpec): Promise<string> {
  return renderChart(scatterChartSpec(spec), labelPoints)
}
