import type { TopLevelSpec } from "vega-lite"
import { chartFrame, chartSize, axisFormat, type NumberFormat } from "./chart-theme.js"
import { renderChart } from "./render-chart.js"

/** The amount of each category at one x, e.g. how many compartments are at each tier at one turn. */
export type StackedAreaRow = { x: number; values: Readonly<Record<string, number>> }

/** What a stacked area chart shows. */
export type StackedAreaChartSpec = {
  title: string
  /** Stacked in this order from the bottom up; the legend lists them in the same order. */
  categories: readonly string[]
  /** Rows need not be sorted by x; a missing, negative or non-finite value counts as zero. */
  rows: readonly StackedAreaRow[]
  /** "count" stacks the values; "share" stacks each row's fractions, so the top is always 100%. Default "count". */
  mode?: "count" | "share"
  xLabel?: string
  yLabel?: string
  /** Default "plain" (turns: 1,000); the y axis is "plain" for counts and "percent" for shares. */
  xFormat?: NumberFormat
  width?: number
  height?: number
}

/**
 * The chart as a Vega-Lite spec. A row equal to both its neighbours is left out (the areas are drawn straight from
 * row to row, so that loses nothing), which keeps a long session whose tiers change now and then small. Pure.
 */
export function stackedAreaChartSpec(spec: StackedAreaChartSpec): TopLevelSpec {
  const { width, height } = chartSize(spec)
  const share = spec.mode === "share"
  const rows = spec.rows
    .filter((row) => Number.isFinite(row.x))
    .map((row) => ({ x: row.x, values: spec.categories.map((category) => amount(row.values[category])) }))
    .sort((a, b) => a.x - b.x)
  const kept = rows.filter((row, index) => {
    const before = rows[index - 1]
    const after = rows[index + 1]
    return !before || !after || !sameValues(before.values, row.values) || !sameValues(row.values, after.values)
  })
  const values = kept.flatMap((row) =>
    spec.categories.map((category, order) => ({ x: row.x, category, order, value: row.values[order] ?? 0 })),
  )
  const xs = kept.map((row) => row.x)
  return {
    ...chartFrame({ title: spec.title, width, height }),
    data: { values },
    mark: { type: "area", interpolate: "linear", opacity: 0.9 },
    encoding: {
      x: {
        field: "x",
        type: "quantitative",
        title: spec.xLabel ?? null,
        scale: { domain: xs.length > 0 ? [xs[0] as number, xs[xs.length - 1] as number] : [0, 1], nice: false, zero: false },
        axis: { ...axisFormat(spec.xFormat ?? "plain"), grid: true },
      },
      y: {
        field: "value",
        type: "quantitative",
        stack: share ? "normalize" : "zero",
        title: spec.yLabel ?? null,
        axis: { ...axisFormat(share ? "percent" : "plain"), grid: true },
      },
      color: { field: "category", type: "nominal", sort: [...spec.categories], scale: { domain: [...spec.categories] }, legend: { symbolType: "square" } },
      order: { field: "order" },
    },
  } as unknown as TopLevelSpec
}

/** The chart as an SVG document (renderChart). */
export function stackedAreaChart(spec: StackedAreaChartSpec): Promise<string> {
  return renderChart(stackedAreaChartSpec(spec))
}

function amount(value: number | undefined): number {
  return value !== undefined && Number.isFinite(value) && value > 0 ? value : 0
}

function sameValues(a: readonly number[], b: readonly number[]): boolean {
  return a.length === b.length && a.every((value, index) => value === b[index])
}
