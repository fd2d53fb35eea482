import { chartSize } from "./chart-layout.js"
import { downsamplePolyline, type Point } from "./downsample-polyline.js"
import type { NumberFormat } from "./format-number.js"
import { paletteColor } from "./palette.js"
import { polylinePath } from "./polyline-path.js"
import { svgDocument } from "./svg-document.js"
import { svgElement, svgText } from "./svg-element.js"
import { valueExtent } from "./value-extent.js"
import { xyFrame } from "./xy-frame.js"

/** The amount of each category at one x, e.g. how many compartments are at each tier at one turn. */
export type StackedAreaRow = { x: number; values: Readonly<Record<string, number>> }

/** What a stacked area chart shows. */
export type StackedAreaChartSpec = {
  title: string
  /** Stacked in this order from the bottom up; the legend lists them top down, as they appear. */
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
 * A stacked area chart as an SVG document. Each boundary between layers is downsampled in pixel space on its own
 * (lowest and highest per pixel column), and each layer is filled between its two boundaries, so a one-turn change
 * in a long run stays visible.
 */
export function stackedAreaChart(spec: StackedAreaChartSpec): string {
  const { width, height } = chartSize(spec)
  const share = spec.mode === "share"
  const rows = spec.rows.filter((row) => Number.isFinite(row.x)).sort((a, b) => a.x - b.x)
  const stacks = rows.map((row) => cumulativeValues(row, spec.categories, share))
  const top = valueExtent(stacks.map((stack) => stack[stack.length - 1] ?? 0))
  const frame = xyFrame({
    width,
    height,
    title: spec.title,
    x: { ...valueExtent(rows.map((row) => row.x)), label: spec.xLabel, format: spec.xFormat ?? "plain" },
    y: share
      ? { min: 0, max: 1, fixedMin: 0, fixedMax: 1, label: spec.yLabel, format: "percent" }
      : { min: 0, max: top.max, label: spec.yLabel, format: "plain" },
    legend: spec.categories
      .map((category, index) => ({ label: category, color: paletteColor(index), swatch: "area" as const }))
      .reverse(),
  })
  const boundaries = Array.from({ length: spec.categories.length + 1 }, (_, level) => {
    const pixels = rows.map((row, index) => ({ x: frame.xScale(row.x), y: frame.yScale(stacks[index]?.[level] ?? 0) }))
    return downsamplePolyline(widenSingle(pixels))
  })
  const layers = spec.categories.flatMap((category, index) => {
    const upper = boundaries[index + 1] ?? []
    const lower = [...(boundaries[index] ?? [])].reverse()
    if (upper.length < 2) return []
    const d = polylinePath([...upper, ...lower], true)
    return [svgElement("path", { d, fill: paletteColor(index) }, [svgText({}, category, "title")])]
  })
  const data = svgElement("g", { "clip-path": frame.clipPath, stroke: "none" }, layers)
  return svgDocument({ width, height, title: spec.title, children: [...frame.elements, data] })
}

/** A lone row would make areas of zero width, so it is drawn as a narrow bar instead. */
function widenSingle(pixels: readonly Point[]): Point[] {
  const [only] = pixels
  if (only === undefined || pixels.length > 1) return [...pixels]
  return [
    { x: only.x - 4, y: only.y },
    { x: only.x + 4, y: only.y },
  ]
}

/** The running totals of a row, from 0 up through each category in order (as fractions of the total for "share"). */
function cumulativeValues(row: StackedAreaRow, categories: readonly string[], share: boolean): number[] {
  const values = categories.map((category) => {
    const value = row.values[category] ?? 0
    return Number.isFinite(value) && value > 0 ? value : 0
  })
  const total = values.reduce((sum, value) => sum + value, 0)
  const divisor = share && total > 0 ? total : 1
  const stack = [0]
  for (const value of values) stack.push((stack[stack.length - 1] ?? 0) + value / divisor)
  return stack
}
