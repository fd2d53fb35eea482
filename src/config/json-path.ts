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

/**
 * A copy of `root` without the values at `paths`, made in one pass (a copy per path made thousands of refused keys
 * quadratic). An array element goes by its index, the others keep their order; objects and arrays the removal leaves
 * empty go too; a path through a value that is not an object or array removes that value. Empty paths are ignored.
 */
export function withoutPaths(root: JsonObject, paths: readonly (readonly PropertyKey[])[]): JsonObject {
  const pruned = prune(root, paths.filter((path) => path.length > 0).map((path) => path.map(String)))
  return isJsonObject(pruned) ? pruned : {}
}

/** `value` without the (non-empty, relative) `paths`; undefined when the value itself goes. */
function prune(value: unknown, paths: readonly string[][]): unknown {
  if (paths.some((path) => path.length === 0)) return undefined
  const byHead = new Map<string, string[][]>()
  for (const [head, ...tail] of paths) {
    const tails = byHead.get(head as string) ?? []
    tails.push(tail)
    byHead.set(head as string, tails)
  }
  if (Array.isArray(value)) {
    const kept: unknown[] = []
    value.forEach((element, index) => {
      const tails = byHead.get(String(index))
      const next = tails ? prunedChild(element, tails) : element
      if (next !== undefined) kept.push(next)
    })
    return kept
  }
  if (!isJsonObject(value)) return undefined
  const copy: JsonObject = { ...value }
  for (const [key, tails] of byHead) {
    if (!Object.hasOwn(copy, key)) continue
    const next = prunedChild(copy[key], tails)
    if (next === undefined) delete copy[key]
    else copy[key] = next
  }
  return copy
}

/** A child without its paths; undefined when it goes, also when the removal left it an empty object or array. */
function prunedChild(child: unknown, paths: readonly string[][]): unknown {
  const next = prune(child, paths)
  return isEmpty(next) && !isEmpty(child) ? undefined : next
}

function isEmpty(value: unknown): boolean {
  return (Array.isArray(value) && value.length === 0) || (isJsonObject(value) && Object.keys(value).length === 0)
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
