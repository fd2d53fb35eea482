/** The smallest and largest of some values. */
export type ValueExtent = { min: number; max: number }

/**
 * The extent of the finite `values`, or `fallback` when there are none. Loops rather than spreading into
 * `Math.min`, which overflows the stack on long series.
 */
export function valueExtent(values: Iterable<number>, fallback: ValueExtent = { min: 0, max: 1 }): ValueExtent {
  let min = Infinity
  let max = -Infinity
  for (const value of values) {
    if (!Number.isFinite(value)) continue
    if (value < min) min = value
    if (value > max) max = value
  }
  return min <= max ? { min, max } : fallback
}
