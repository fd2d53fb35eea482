import type { Point } from "./downsample-polyline.js"
import { formatNumber } from "./format-number.js"

/**
 * SVG path data through the points ("M1 2L3 4…"), to a tenth of a pixel: finer than any screen shows, and it keeps
 * long series small. `closed` adds a final "Z" for filled areas.
 */
export function polylinePath(points: readonly Point[], closed = false): string {
  const commands = points.map(
    (point, index) => `${index === 0 ? "M" : "L"}${formatNumber(point.x, 1)} ${formatNumber(point.y, 1)}`,
  )
  return commands.join("") + (closed && points.length > 0 ? "Z" : "")
}
