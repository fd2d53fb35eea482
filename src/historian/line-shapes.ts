/**
 * `varied-shapes`: the shape of a kept line, so that one repeated shape cannot fill an output's kept lines. A
 * manifest's dependency lines (`github.com/a/b v1.2.3`), a listing's rows or a generated file's near-copies of one
 * comment are many lines of one kind; past a few of them, the line of another shape (a `replace` directive, a note
 * under the list) says more. Pure.
 */

/** Of one shape, at one priority, this many lines come before the lines of other shapes. */
export const SAME_SHAPE_LINES = 3

/** A word, a path, a version or a number: what varies between lines of one shape. */
const TOKEN = /[\p{L}\p{N}][\p{L}\p{N}_.\/:@+-]*/gu

/** The line with each word, path, version and number written `w`: `github.com/a/b v1.2.3` is `w w`. */
export function lineShape(line: string): string {
  return line.replace(TOKEN, "w")
}

/** Of one priority, at most this many candidates are shaped: a huge log of one shape costs what a page does. */
export const SHAPED_CANDIDATES = 1_000

/**
 * The first `places` of `sorted` (candidates by priority, then line order), where in the priority that has more
 * candidates than the places left, those past the first SAME_SHAPE_LINES of their shape come after the others
 * (among its first SHAPED_CANDIDATES), the rest in line order. Earlier priorities are taken whole.
 */
export function takeVaried<T extends { text: string; priority: number }>(sorted: readonly T[], places: number): T[] {
  const chosen: T[] = []
  let start = 0
  while (start < sorted.length && chosen.length < places) {
    const priority = sorted[start]?.priority
    let end = start
    while (end < sorted.length && sorted[end]?.priority === priority) end += 1
    const left = places - chosen.length
    if (end - start <= left) {
      for (let at = start; at < end; at += 1) chosen.push(sorted[at] as T)
      start = end
      continue
    }
    const seen = new Map<string, number>()
    const varied = new Set<number>()
    for (let at = start; at < Math.min(end, start + SHAPED_CANDIDATES) && varied.size < left; at += 1) {
      const shape = lineShape((sorted[at] as T).text)
      const count = (seen.get(shape) ?? 0) + 1
      seen.set(shape, count)
      if (count <= SAME_SHAPE_LINES) varied.add(at)
    }
    for (const at of varied) chosen.push(sorted[at] as T)
    for (let at = start; at < end && chosen.length < places; at += 1) if (!varied.has(at)) chosen.push(sorted[at] as T)
    break
  }
  return chosen
}
