/**
 * Converts a source timestamp to epoch milliseconds: numbers are taken as milliseconds, strings as ISO 8601.
 * An ISO string without a zone (OpenHands writes Python's naive `isoformat()`) is read as UTC, so the result does not
 * depend on the machine's time zone. Anything unparseable gives null.
 */
export function toEpochMs(value: unknown): number | null {
  if (typeof value === "number") return Number.isFinite(value) ? value : null
  if (typeof value !== "string" || value === "") return null
  const hasZone = /(Z|[+-]\d\d:?\d\d)$/i.test(value)
  const isDateTime = /^\d{4}-\d\d-\d\dT/.test(value)
  const parsed = Date.parse(isDateTime && !hasZone ? `${value}Z` : value)
  return Number.isNaN(parsed) ? null : parsed
}
