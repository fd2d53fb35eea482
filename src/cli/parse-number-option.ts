/**
 * Reads a numeric option: undefined when absent, the number when it is in bounds, else an error that names the
 * option, what it takes and what it got.
 */
export function parseNumberOption(
  raw: string | undefined,
  name: string,
  bounds: { min: number; max?: number; integer: boolean },
): number | undefined | { error: string } {
  if (raw === undefined) return undefined
  const value = Number(raw)
  const inRange = Number.isFinite(value) && value >= bounds.min && (bounds.max === undefined || value <= bounds.max)
  if (!inRange || (bounds.integer && !Number.isInteger(value))) {
    const range = bounds.max === undefined ? `at least ${bounds.min}` : `between ${bounds.min} and ${bounds.max}`
    return { error: `${name} takes ${bounds.integer ? "an integer" : "a number"} ${range}, got "${raw}"` }
  }
  return value
}

export function numberOrUndefined(value: number | undefined | { error: string }): number | undefined {
  return typeof value === "number" ? value : undefined
}


/** The smallest usable window the Lab and replay accept. */
export const MIN_WINDOW_TOKENS = 1_000

/** Reads a comma-separated list of windows (integers of at least MIN_WINDOW_TOKENS tokens), duplicates removed. */
export function parseWindowList(raw: string, name: string): { ok: true; value: number[] } | { ok: false; error: string } {
  const values: number[] = []
  for (const item of raw.split(",")) {
    const value = parseNumberOption(item.trim(), name, { min: MIN_WINDOW_TOKENS, integer: true })
    if (typeof value === "object") return { ok: false, error: value.error }
    if (value !== undefined && !values.includes(value)) values.push(value)
  }
  return { ok: true, value: values }
}
