/** A point; in pixel space when it is about to be drawn. */
export type Point = { x: number; y: number }

/**
 * A polyline in pixel space, sorted by x, reduced to what can be seen: within each one-pixel column only the lowest
 * and highest points are kept (in their original order, so a one-turn spike still reaches its full height), then
 * points lying within half a pixel of the line between their neighbours are dropped. The first and last points always
 * stay. A thousand-turn series thus costs at most two points per pixel column, and a flat stretch costs two points.
 */
export function downsamplePolyline(points: readonly Point[]): Point[] {
  return dropCollinear(columnExtremes(points))
}

/** How far (in pixels) a point may sit from the line through its neighbours and still be dropped. */
const TOLERANCE = 0.5

function columnExtremes(points: readonly Point[]): Point[] {
  const first = points[0]
  const last = points[points.length - 1]
  if (first === undefined || last === undefined || points.length <= 2) return [...points]
  const kept: Point[] = []
  let column: Point[] = []
  for (const point of points) {
    const start = column[0]
    if (start !== undefined && Math.floor(point.x) !== Math.floor(start.x)) {
      kept.push(...extremesOf(column))
      column = []
    }
    column.push(point)
  }
  kept.push(...extremesOf(column))
  if (kept[0] !== first) kept.unshift(first)
  if (kept[kept.length - 1] !== last) kept.push(last)
  return kept
}

function extremesOf(column: readonly Point[]): Point[] {
  const first = column[0]
  if (first === undefined) return []
  let lowest = { point: first, index: 0 }
  let highest = { point: first, index: 0 }
  column.forEach((point, index) => {
    if (point.y < lowest.point.y) lowest = { point, index }
    if (point.y > highest.point.y) highest = { point, index }
  })
  if (lowest.index === highest.index) return [lowest.point]
  return lowest.index < highest.index ? [lowest.point, highest.point] : [highest.point, lowest.point]
}

function dropCollinear(points: readonly Point[]): Point[] {
  const first = points[0]
  const last = points[points.length - 1]
  if (first === undefined || last === undefined || points.length <= 2) return [...points]
  const kept: Point[] = [first]
  for (let index = 1; index < points.length - 1; index++) {
    const anchor = kept[kept.length - 1] ?? first
    const point = points[index] ?? first
    const next = points[index + 1] ?? last
    if (distanceToLine(point, anchor, next) >= TOLERANCE) kept.push(point)
  }
  kept.push(last)
  return kept
}

/** Distance from `point` to the line through `start` and `end` (to `start` itself when they coincide). */
function distanceToLine(point: Point, start: Point, end: Point): number {
  const dx = end.x - start.x
  const dy = end.y - start.y
  const length = Math.hypot(dx, dy)
  if (length === 0) return Math.hypot(point.x - start.x, point.y - start.y)
  return Math.abs(dy * (point.x - start.x) - dx * (point.y - start.y)) / length
}
