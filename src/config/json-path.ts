/** A plain JSON object (not an array, not null). */
export type JsonObject = Record<string, unknown>

/** True for a plain object value. */
export function isJsonObject(value: unknown): value is JsonObject {
  return value !== null && typeof value === "object" && !Array.isArray(value)
}

/** The value at `path`, or undefined. */
export function getPath(root: unknown, path: readonly PropertyKey[]): unknown {
  let cursor: unknown = root
  for (const key of path) {
    if (!isJsonObject(cursor) && !Array.isArray(cursor)) return undefined
    cursor = (cursor as Record<PropertyKey, unknown>)[key as string]
  }
  return cursor
}

/** A copy of `root` without the value at `path` (and without objects left empty by the removal). */
export function withoutPath(root: JsonObject, path: readonly PropertyKey[]): JsonObject {
  const [head, ...rest] = path
  if (head === undefined) return root
  const key = String(head)
  if (!(key in root)) return root
  const copy: JsonObject = { ...root }
  if (rest.length === 0) {
    delete copy[key]
    return copy
  }
  const child = copy[key]
  if (!isJsonObject(child)) {
    delete copy[key]
    return copy
  }
  const pruned = withoutPath(child, rest)
  if (Object.keys(pruned).length === 0) delete copy[key]
  else copy[key] = pruned
  return copy
}

/** Deep merge of plain objects; values of `override` win, arrays are replaced whole. */
export function mergeDeep(base: JsonObject, override: JsonObject): JsonObject {
  const merged: JsonObject = { ...base }
  for (const [key, value] of Object.entries(override)) {
    const existing = merged[key]
    merged[key] = isJsonObject(existing) && isJsonObject(value) ? mergeDeep(existing, value) : value
  }
  return merged
}

/** Dotted paths of every leaf (a non-object value, or an empty object), in key order. */
export function leafPaths(root: JsonObject, prefix: string[] = []): string[][] {
  const paths: string[][] = []
  for (const [key, value] of Object.entries(root)) {
    const path = [...prefix, key]
    if (isJsonObject(value) && Object.keys(value).length > 0) paths.push(...leafPaths(value, path))
    else paths.push(path)
  }
  return paths
}
