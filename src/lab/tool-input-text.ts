import { stableJson } from "../transcript/part-content.js"

/**
 * The text a model reads from a tool call: the tool's name, then every leaf value of its input decoded (strings as
 * they are, not JSON-escaped; numbers and booleans as written), one per line, in sorted key order.
 */
export function toolInputText(tool: string, input: unknown): string {
  return [tool, ...leafValues(input)].join("\n")
}

function leafValues(value: unknown): string[] {
  if (typeof value === "string") return [value]
  if (typeof value === "number" || typeof value === "boolean" || typeof value === "bigint") return [String(value)]
  if (value === null || value === undefined) return []
  if (Array.isArray(value)) return value.flatMap(leafValues)
  if (typeof value === "object") {
    const entries = Object.entries(value as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    return entries.flatMap(([, inner]) => leafValues(inner))
  }
  return [stableJson(value)]
}
