import type { Config } from "vega-lite"
import { OKABE_ITO } from "./palette.js"

/**
 * How a value reads on an axis: `compact` abbreviates thousands (48k, 1.2M), for tokens; `plain` groups digits
 * (1,000), for turns; `percent` shows a fraction (0.4) as 40%.
 */
export type NumberFormat = "compact" | "plain" | "percent"

/** Sizes and colours every chart shares, so the Lab's charts read as one set. */
export const CHART_STYLE = {
  width: 800,
  height: 450,
  fontFamily: "system-ui, -apple-system, Segoe UI, Roboto, Helvetica, Arial, sans-serif",
  textColor: "#222222",
  mutedTextColor: "#555555",
  axisColor: "#888888",
  gridColor: "#e6e6e6",
  referenceColor: "#444444",
  background: "#ffffff",
} as const

/** The Vega-Lite config of every chart: the house fonts and colours, the Okabe–Ito palette, no frame around plots. */
export const CHART_CONFIG: Config = {
  font: CHART_STYLE.fontFamily,
  background: CHART_STYLE.background,
  padding: 16,
  title: { fontSize: 16, fontWeight: "bold", color: CHART_STYLE.textColor, anchor: "start", offset: 14 },
  axis: {
    labelFontSize: 11,
    labelColor: CHART_STYLE.mutedTextColor,
    titleFontSize: 13,
    titleFontWeight: "normal",
    titleColor: CHART_STYLE.textColor,
    titlePadding: 10,
    gridColor: CHART_STYLE.gridColor,
    domainColor: CHART_STYLE.axisColor,
    tickColor: CHART_STYLE.axisColor,
  },
  legend: { labelFontSize: 12, labelColor: CHART_STYLE.textColor, title: null, orient: "right", offset: 18, symbolSize: 120 },
  range: { category: [...OKABE_ITO] },
  view: { stroke: null },
  line: { strokeWidth: 2 },
  point: { filled: true, size: 60 },
}

/**
 * An axis's labels in `format`: percent as 40%, plain with grouped digits (1,250), compact with SI suffixes (48k,
 * 1.2M; zero as 0, where Vega's own SI labels would give every tick the same unit, "0k").
 */
export function axisFormat(format: NumberFormat): { format: string } | { labelExpr: string } {
  if (format === "percent") return { format: ".0%" }
  if (format === "plain") return { format: ",~f" }
  return { labelExpr: "datum.value === 0 ? '0' : format(datum.value, '~s')" }
}

/** A chart's pixel size from its spec: the house default, and never non-finite, tiny or huge. */
export function chartSize(spec: { width?: number; height?: number }): { width: number; height: number } {
  return { width: sizeWithin(spec.width, CHART_STYLE.width), height: sizeWithin(spec.height, CHART_STYLE.height) }
}

function sizeWithin(value: number | undefined, fallback: number): number {
  if (value === undefined || !Number.isFinite(value)) return fallback
  return Math.min(4_000, Math.max(200, Math.round(value)))
}

/*
 * The chart modules build their specs from typed pieces and hand them to Vega-Lite as `TopLevelSpec` through
 * `unknown`: its spec types do not narrow object literals assembled in parts. Vega-Lite checks the spec when it
 * compiles it, and every chart's test renders it.
 */

/**
 * What every chart's top-level spec starts with: the title, the whole document's size (legends, axes and title fit
 * inside it: `autosize: fit`), the shared config.
 */
export function chartFrame(options: { title: string; width: number; height: number }) {
  return {
    $schema: "https://vega.github.io/schema/vega-lite/v6.json",
    title: options.title,
    width: options.width,
    height: options.height,
    autosize: { type: "fit", contains: "padding" },
    config: CHART_CONFIG,
  } as const
}
