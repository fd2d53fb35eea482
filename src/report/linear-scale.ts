/** Maps a data value to a pixel coordinate. */
export type LinearScale = (value: number) => number

/**
 * A linear map from `domain` onto `range`. A zero-width domain maps everything to the middle of the range, and a
 * non-finite value to the range's start, so a scale never yields NaN.
 */
export function linearScale(options: {
  domain: readonly [number, number]
  range: readonly [number, number]
}): LinearScale {
  const [domainStart, domainEnd] = options.domain
  const [rangeStart, rangeEnd] = options.range
  const span = domainEnd - domainStart
  if (!(Number.isFinite(span) && span !== 0)) return () => (rangeStart + rangeEnd) / 2
  const factor = (rangeEnd - rangeStart) / span
  return (value) => (Number.isFinite(value) ? rangeStart + (value - domainStart) * factor : rangeStart)
}
