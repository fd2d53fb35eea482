/**
 * `varied-shapes`: the shape of a kept line, so that one repeated shape cannot fill an output's kept lines. A manifest's
 * dependency lines (`github.com/a/b v1.2.3`), a listing's rows or a generated file's near-copies of one comment are
 * many lines of one kind; past a few of them, the line of another shape (a `replace` directive, a note under the
 * list) says more. Pure.
 */

/** Of one shape, at one priority, this many lines come before the lines of other shapes. */
export const SAME_SHAPE_LINES = 3

/** A word, a path, a version or a number: what varies between lines of one shape. */
const TOKEN = /[\p{L}\p{N}][\p{L}\p{N}_.\/:@+-]*/gu

/** The line with each word, path, version and number written `w`: `github.com/a/b v1.2.3` is `w w`. */
export function lineShape(line: string): string {
  return line.replace(TOKEN, "w")
}

/**
 * The line indexes of the candidates (given in line order) that come after the others of their priority: those past
 * the first SAME_SHAPE_LINES of one shape at that priority.
 */
export function repeatedShapes(candidates: readonly { index: number; text: string; priority: number }[]): Set<number> {
  const seen = new Map<string, number>()
  const repeated = new Set<number>()
  for (const candidate of candidates) {
    const key = `${candidate.priority} ${lineShape(candidate.text)}`
    const count = (seen.get(key) ?? 0) + 1
    seen.set(key, count)
    if (count > SAME_SHAPE_LINES) repeated.add(candidate.index)
  }
  return repeated
}
