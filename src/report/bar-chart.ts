import type { TopLevelSpec } from "vega-lite"
import { chartFrame, chartSize, axisFormat, type NumberFormat } from "./chart-theme.js"
import { renderChart } from "./render-chart.js"

/** One bar per category: the series' name for the legend and a value per category (null: no bar). */
export type BarSeries = { name: string; values: readonly (number | null)[] }

/** What a grouped bar chart shows. */
export type BarChartSpec = {
  title: string
  /** The groups, in order (left to right, or top down when horizontal). */
  categories: readonly string[]
  /** The bars within each group, in order; `values[i]` belongs to `categories[i]`. */
  series: readonly BarSeries[]
  /** Default "vertical"; "horizontal" suits long category names. */
  orientation?: "vertical" | "horizontal"
  valueLabel?: string
  categoryLabel?: string
  /** Default "compact" (48k, 1.2M); "percent" for rates. */
  valueFormat?: NumberFormat
  /** The end of the value axis, e.g. 1 for rates; by default a nice value above the largest. */
  valueMax?: number
  width?: number
  height?: number
}

/** The chart as a Vega-Lite spec: groups of bars growing from zero, the series side by side in each group. Pure. */
export function barChartSpec(spec: BarChartSpec): TopLevelSpec {
  const { width, height } = chartSize(spec)
  const horizontal = spec.orientation === "horizontal"
  const names = spec.series.map((series) => series.name)
  const values = spec.categories.flatMap((category, index) =>
    spec.series.flatMap((series) => {
      const value = series.values[index]
      return value === null || value === undefined || !Number.isFinite(value) ? [] : [{ category, series: series.name, value }]
    }),
  )
  const category = {
    field: "category",
    type: "nominal",
    title: spec.categoryLabel ?? null,
    sort: [...spec.categories],
    scale: { domain: [...spec.categories], paddingInner: 0.25 },
    axis: horizontal ? {} : { labelAngle: 0 },
  } as const
  const value = {
    field: "value",
    type: "quantitative",
    title: spec.valueLabel ?? null,
    scale: spec.valueMax === undefined ? { zero: true } : { domain: [0, spec.valueMax], zero: true },
    axis: { ...axisFormat(spec.valueFormat ?? "compact"), grid: true },
  } as const
  const offset = { field: "series", type: "nominal", sort: names, scale: { domain: names } } as const
  return {
    ...chartFrame({ title: spec.title, width, height }),
    data: { values },
    mark: { type: "bar" },
    encoding: {
      ...(horizontal ? { y: category, yOffset: offset, x: value } : { x: category, xOffset: offset, y: value }),
      color: { field: "series", type: "nominal", sort: names, scale: { domain: names } },
    },
  } as unknown as TopLevelSpec
}

/** The chart as an SVG document (renderChart). */
export function barChart(spec: BarChartSpec): Promise<string> {
  return renderChart(barChartSpec(spec))
}
