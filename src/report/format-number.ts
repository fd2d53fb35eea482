/**
 * How a value reads on an axis or in a tooltip: `compact` abbreviates thousands (48k, 1.2M), for tokens; `plain`
 * groups digits (1,000), for turns; `percent` shows a fraction (0.4) as 40%.
 */
export type NumberFormat = "compact" | "plain" | "percent"

/**
 * A number rounded to at most `decimals` places, with no trailing zeros and never `-0`. A non-finite value becomes
 * "0": charts print every coordinate through here, so no document can contain NaN or Infinity.
 */
export function formatNumber(value: number, decimals = 2): string {
  if (!Number.isFinite(value)) return "0"
  const factor = 10 ** decimals
  const rounded = Math.round(value * factor) / factor
  // Also catches -0 and values that round to zero from below.
  if (rounded === 0) return "0"
  const fixed = rounded.toFixed(decimals)
  return fixed.includes(".") ? fixed.replace(/0+$/, "").replace(/\.$/, "") : fixed
}

/** A number with thousands abbreviated for token axes: 950, 1.5k, 48k, 1.2M, 3B (at most two decimals). */
export function formatCompactNumber(value: number): string {
  if (!Number.isFinite(value)) return "0"
  const sign = value < 0 ? "-" : ""
  const magnitude = Math.abs(value)
  for (const unit of UNITS) {
    // Round before comparing so 999,999 reads "1M", not "1000k".
    const scaled = Math.round((magnitude / unit.size) * 100) / 100
    if (scaled >= 1) return `${sign}${formatNumber(scaled)}${unit.suffix}`
  }
  const small = formatNumber(magnitude)
  return small === "0" ? "0" : `${sign}${small}`
}

/** A number with its digits grouped in threes by commas (1,234.5), independent of the machine's locale. */
export function formatGroupedNumber(value: number): string {
  const [whole = "0", fraction] = formatNumber(value).split(".")
  const grouped = whole.replace(/\B(?=(\d{3})+$)/g, ",")
  return fraction === undefined ? grouped : `${grouped}.${fraction}`
}

/** A value in the given format. */
export function formatValue(value: number, format: NumberFormat): string {
  if (format === "percent") return `${formatNumber(value * 100, 1)}%`
  if (format === "plain") return formatGroupedNumber(value)
  return formatCompactNumber(value)
}

const UNITS = [
  { size: 1e9, suffix: "B" },
  { size: 1e6, suffix: "M" },
  { size: 1e3, suffix: "k" },
] as const
