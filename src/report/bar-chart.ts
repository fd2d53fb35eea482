import { niceTicks } from "./axis-ticks.js"
import { xAxisElements, yAxisElements } from "./chart-axes.js"
import { chartLayout, chartSize, chartTitle, type PlotArea } from "./chart-layout.js"
import { legendElement } from "./chart-legend.js"
import { CHART_STYLE } from "./chart-style.js"
import { formatNumber, formatValue, type NumberFormat } from "./format-number.js"
import { linearScale, type LinearScale } from "./linear-scale.js"
import { paletteColor } from "./palette.js"
import { svgDocument } from "./svg-document.js"
import { svgElement, svgText } from "./svg-element.js"
import { truncateText } from "./text-width.js"
import { valueExtent } from "./value-extent.js"

/** One bar per category for one series, e.g. a policy's survival rate per probe kind. `null` leaves a gap. */
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
  /** The end of the value axis, e.g. 1 for rates; by default the nice tick above the largest value. */
  valueMax?: number
  width?: number
  height?: number
}

/** A grouped bar chart as an SVG document; the value axis always includes zero, and bars grow from it. */
export function barChart(spec: BarChartSpec): string {
  const { width, height } = chartSize(spec)
  const horizontal = spec.orientation === "horizontal"
  const format = spec.valueFormat ?? "compact"
  const extent = valueExtent([0, ...spec.series.flatMap((series) => series.values.map((value) => value ?? 0))])
  const fixedMax =
    spec.valueMax !== undefined && Number.isFinite(spec.valueMax) && spec.valueMax > extent.min
      ? spec.valueMax
      : undefined
  const ticks = niceTicks({
    min: extent.min,
    max: fixedMax ?? extent.max,
    count: Math.round((horizontal ? width : height) / 80),
  })
  const domain: [number, number] = [ticks.min, fixedMax ?? ticks.max]
  const tickValues = ticks.values.filter((tick) => tick <= domain[1] + ticks.step * 1e-6)
  const tickLabels = tickValues.map((tick) => formatValue(tick, format))
  const categoryLabels = spec.categories.map((category) =>
    truncateText({ text: category, maxWidth: 160, fontSize: CHART_STYLE.tickSize }),
  )
  const layout = chartLayout({
    width,
    height,
    title: spec.title,
    xLabel: horizontal ? spec.valueLabel : spec.categoryLabel,
    yLabel: horizontal ? spec.categoryLabel : spec.valueLabel,
    yTickLabels: horizontal ? categoryLabels : tickLabels,
    xTickLabels: horizontal ? tickLabels : [],
    legendLabels: spec.series.map((series) => series.name),
  })
  const { plot } = layout
  const scale = horizontal
    ? linearScale({ domain, range: [plot.left, plot.left + plot.width] })
    : linearScale({ domain, range: [plot.top + plot.height, plot.top] })
  const axis = { plot, ticks: tickValues, scale, format }
  const valueAxis = horizontal
    ? xAxisElements({ ...axis, label: spec.valueLabel })
    : yAxisElements({ ...axis, label: spec.valueLabel })
  const legend = spec.series.map((series, index) => ({
    label: series.name,
    color: paletteColor(index),
    swatch: "area" as const,
  }))
  return svgDocument({
    width,
    height,
    title: spec.title,
    children: [
      ...(spec.title === "" ? [] : [chartTitle({ width, title: spec.title })]),
      ...valueAxis,
      ...categoryAxis({ spec, plot, horizontal, labels: categoryLabels }),
      bars({ spec, plot, horizontal, scale, format }),
      ...(layout.legend === undefined ? [] : [legendElement({ ...layout.legend, entries: legend })]),
    ],
  })
}

type BarLayout = { spec: BarChartSpec; plot: PlotArea; horizontal: boolean }

/** Category names centred on their groups (cut to the group's width when vertical), and the category axis title. */
function categoryAxis(options: BarLayout & { labels: readonly string[] }): string[] {
  const { spec, plot, horizontal } = options
  const band = (horizontal ? plot.height : plot.width) / Math.max(1, spec.categories.length)
  const bottom = plot.top + plot.height
  const labels = options.labels.map((label, index) => {
    const middle = (horizontal ? plot.top : plot.left) + band * (index + 0.5)
    if (horizontal) return svgText({ x: plot.left - 6, y: middle, dy: "0.35em" }, label)
    const text = truncateText({ text: label, maxWidth: band - 4, fontSize: CHART_STYLE.tickSize })
    return svgText({ x: middle, y: bottom + 8 + CHART_STYLE.tickSize }, text)
  })
  const style = {
    "font-size": CHART_STYLE.tickSize,
    fill: CHART_STYLE.mutedTextColor,
    "text-anchor": horizontal ? "end" : "middle",
  }
  const axisLine = horizontal
    ? { x1: plot.left, y1: plot.top, x2: plot.left, y2: bottom }
    : { x1: plot.left, y1: bottom, x2: plot.left + plot.width, y2: bottom }
  return [
    svgElement("line", { ...axisLine, stroke: CHART_STYLE.axisColor }),
    svgElement("g", style, labels),
    ...categoryTitle(options),
  ]
}

function categoryTitle({ spec, plot, horizontal }: BarLayout): string[] {
  if (!spec.categoryLabel) return []
  const style = { "font-size": CHART_STYLE.labelSize, fill: CHART_STYLE.textColor, "text-anchor": "middle" }
  if (!horizontal) {
    const y = plot.top + plot.height + 18 + CHART_STYLE.tickSize + CHART_STYLE.labelSize
    return [svgText({ x: plot.left + plot.width / 2, y, ...style }, spec.categoryLabel)]
  }
  const x = 10 + CHART_STYLE.labelSize
  const y = plot.top + plot.height / 2
  return [
    svgText({ x, y, transform: `rotate(-90 ${formatNumber(x)} ${formatNumber(y)})`, ...style }, spec.categoryLabel),
  ]
}

/** The bars: each group fills 80% of its band, split evenly between the series; each bar's value shows on hover. */
function bars(options: BarLayout & { scale: LinearScale; format: NumberFormat }): string {
  const { spec, plot, horizontal, scale, format } = options
  const band = (horizontal ? plot.height : plot.width) / Math.max(1, spec.categories.length)
  const thickness = (band * 0.8) / Math.max(1, spec.series.length)
  const zero = scale(0)
  const [low, high] = horizontal ? [plot.left, plot.left + plot.width] : [plot.top, plot.top + plot.height]
  const rects = spec.categories.flatMap((category, categoryIndex) =>
    spec.series.flatMap((series, seriesIndex) => {
      const value = series.values[categoryIndex]
      if (value === null || value === undefined || !Number.isFinite(value)) return []
      const offset = (horizontal ? plot.top : plot.left) + band * (categoryIndex + 0.1) + thickness * seriesIndex
      // A value beyond valueMax stops at the plot's edge rather than running over the legend.
      const end = Math.min(Math.max(scale(value), low), high)
      const box = horizontal
        ? { x: Math.min(zero, end), y: offset, width: Math.abs(end - zero), height: thickness }
        : { x: offset, y: Math.min(zero, end), width: thickness, height: Math.abs(end - zero) }
      const tooltip = svgText({}, `${category} · ${series.name}: ${formatValue(value, format)}`, "title")
      return [svgElement("rect", { ...box, fill: paletteColor(seriesIndex) }, [tooltip])]
    }),
  )
  return svgElement("g", {}, rects)
}
