import { CHART_STYLE } from "./chart-style.js"
import { formatNumber } from "./format-number.js"
import { svgElement, svgText } from "./svg-element.js"

/**
 * A standalone SVG document: fixed pixel size with a matching `viewBox` (so it scales when embedded), a `<title>`
 * for screen readers and tooltips, the system sans-serif font and an opaque white background (dark-mode viewers
 * would otherwise show black text on black).
 */
export function svgDocument(options: {
  width: number
  height: number
  title: string
  children: readonly string[]
}): string {
  const { width, height, title, children } = options
  const body = [
    svgText({}, title, "title"),
    svgElement("rect", { width, height, fill: CHART_STYLE.background }),
    ...children,
  ]
  const attributes = {
    xmlns: "http://www.w3.org/2000/svg",
    width,
    height,
    viewBox: `0 0 ${formatNumber(width)} ${formatNumber(height)}`,
    role: "img",
    "font-family": CHART_STYLE.fontFamily,
  }
  // One top-level element per line, so diffs of golden files stay readable.
  return `${svgElement("svg", attributes, body.flatMap((element) => ["\n", element]).concat("\n"))}\n`
}
