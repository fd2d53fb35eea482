import { formatNumber } from "./format-number.js"
import { svgElement, svgText } from "./svg-element.js"

/** A point marker's shape: scatter series differ in shape as well as colour, for readers who confuse colours. */
export type MarkerShape = "circle" | "square" | "triangle" | "diamond"

/** Shapes in the order series take them. */
export const MARKER_SHAPES: readonly MarkerShape[] = ["circle", "square", "triangle", "diamond"]

/** A marker centred on (x, y), outlined in white so overlapping markers stay distinct; `tooltip` shows on hover. */
export function markerElement(options: {
  shape: MarkerShape
  x: number
  y: number
  color: string
  radius: number
  tooltip?: string | undefined
}): string {
  const { x, y, radius: r, color } = options
  const children = options.tooltip === undefined ? [] : [svgText({}, options.tooltip, "title")]
  const paint = { fill: color, stroke: "#ffffff", "stroke-width": 1 }
  if (options.shape === "circle") return svgElement("circle", { cx: x, cy: y, r, ...paint }, children)
  const d = shapePath(options.shape, x, y, r)
  return svgElement("path", { d, ...paint }, children)
}

function shapePath(shape: Exclude<MarkerShape, "circle">, x: number, y: number, r: number): string {
  const n = (value: number): string => formatNumber(value)
  if (shape === "square") {
    const half = r * 0.88
    return `M${n(x - half)} ${n(y - half)}H${n(x + half)}V${n(y + half)}H${n(x - half)}Z`
  }
  if (shape === "triangle") {
    const size = r * 1.2
    return `M${n(x)} ${n(y - size)}L${n(x + size)} ${n(y + size * 0.8)}L${n(x - size)} ${n(y + size * 0.8)}Z`
  }
  const size = r * 1.25
  return `M${n(x)} ${n(y - size)}L${n(x + size)} ${n(y)}L${n(x)} ${n(y + size)}L${n(x - size)} ${n(y)}Z`
}
