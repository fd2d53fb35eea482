/** Tick positions for one axis: the extended domain they cover, their step and the values, in increasing order. */
export type AxisTicks = { min: number; max: number; step: number; values: number[] }

/**
 * "Nice" ticks covering `min`..`max`: a step of 1, 2 or 5 × 10^k chosen so there are about `count` intervals, with
 * the domain widened outwards to whole steps. Degenerate input still gives a usable axis: a non-finite bound falls
 * back to 0..1, equal bounds are widened by 10%, and 0..0 becomes 0..1 (all our charts count upwards from zero).
 */
export function niceTicks(options: { min: number; max: number; count?: number }): AxisTicks {
  const [low, high] = usableDomain(options.min, options.max)
  const count = Math.max(1, Math.floor(Number.isFinite(options.count) ? (options.count ?? 5) : 5))
  const step = niceStep((high - low) / count)
  const decimals = Math.max(0, Math.ceil(-Math.log10(step) - 1e-9))
  // The epsilon keeps 0.3 / 0.1 = 2.9999999999999996 from adding a tick below the data.
  const first = Math.floor(low / step + 1e-9)
  const last = Math.max(first + 1, Math.ceil(high / step - 1e-9))
  const values = Array.from({ length: last - first + 1 }, (_, index) => roundTo((first + index) * step, decimals))
  return { min: values[0] ?? low, max: values[values.length - 1] ?? high, step, values }
}

/** Inputs are clamped to ±1e15 so the span can never overflow to Infinity. */
const LIMIT = 1e15

function usableDomain(min: number, max: number): [number, number] {
  if (!Number.isFinite(min) || !Number.isFinite(max)) return [0, 1]
  const low = clamp(Math.min(min, max))
  const high = clamp(Math.max(min, max))
  if (high > low) return [low, high]
  if (low === 0) return [0, 1]
  const margin = Math.abs(low) * 0.1
  return [low - margin, high + margin]
}

function niceStep(raw: number): number {
  const exponent = Math.floor(Math.log10(raw))
  // The slack keeps float noise (0.6 / 6 = 0.10000000000000002) from bumping a step up to the next nice value.
  const fraction = raw / 10 ** exponent - 1e-9
  const nice = fraction <= 1 ? 1 : fraction <= 2 ? 2 : fraction <= 5 ? 5 : 10
  // toPrecision drops float noise such as 5 * 1e-7 = 4.999999999999999e-7.
  return Number((nice * 10 ** exponent).toPrecision(1))
}

function roundTo(value: number, decimals: number): number {
  const rounded = Number(value.toFixed(Math.min(decimals, 20)))
  return rounded === 0 ? 0 : rounded
}

function clamp(value: number): number {
  return Math.min(LIMIT, Math.max(-LIMIT, value))
}
