import { CHART_STYLE } from "./chart-style.js"
import { escapeXml } from "./escape-xml.js"
import { markerElement, type MarkerShape } from "./marker-shape.js"
import { svgElement, svgText } from "./svg-element.js"
import { estimateTextWidth, truncateText } from "./text-width.js"

/** How an entry's sample looks: a line, a filled square or a point marker. */
export type LegendSwatch = "line" | "area" | MarkerShape

/** One legend row. */
export type LegendEntry = { label: string; color: string; swatch: LegendSwatch }

/** The width a legend with these labels takes (0 when there are none); long labels are cut to fit. */
export function legendWidth(labels: readonly string[]): number {
  if (labels.length === 0) return 0
  const widest = labels.reduce((max, label) => Math.max(max, estimateTextWidth(label, CHART_STYLE.legendSize)), 0)
  return SWATCH_WIDTH + GAP + Math.min(MAX_LABEL_WIDTH, widest)
}

/** The legend as one group, a row per entry from (x, y) down; a cut label keeps its full text as a tooltip. */
export function legendElement(options: { x: number; y: number; entries: readonly LegendEntry[] }): string {
  const rows = options.entries.map((entry, index) => {
    const middle = options.y + index * ROW_HEIGHT + ROW_HEIGHT / 2
    const text = truncateText({ text: entry.label, maxWidth: MAX_LABEL_WIDTH, fontSize: CHART_STYLE.legendSize })
    const position = { x: options.x + SWATCH_WIDTH + GAP, y: middle, dy: "0.35em" }
    const label =
      text === entry.label
        ? svgText(position, text)
        : svgElement("text", position, [svgText({}, entry.label, "title"), escapeXml(text)])
    return swatchElement(entry, options.x, middle) + label
  })
  return svgElement("g", { "font-size": CHART_STYLE.legendSize, fill: CHART_STYLE.textColor }, rows)
}

const ROW_HEIGHT = 20
const SWATCH_WIDTH = 22
const GAP = 6
const MAX_LABEL_WIDTH = 160

function swatchElement(entry: LegendEntry, x: number, middle: number): string {
  if (entry.swatch === "line") {
    return svgElement("line", {
      x1: x,
      y1: middle,
      x2: x + SWATCH_WIDTH,
      y2: middle,
      stroke: entry.color,
      "stroke-width": 2.5,
    })
  }
  if (entry.swatch === "area") {
    return svgElement("rect", { x: x + 4, y: middle - 7, width: 14, height: 14, fill: entry.color })
  }
  return markerElement({ shape: entry.swatch, x: x + SWATCH_WIDTH / 2, y: middle, color: entry.color, radius: 5 })
}
