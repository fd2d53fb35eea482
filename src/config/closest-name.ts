/**
 * The known name closest to `given` by edit distance, when it is near enough to be a slip of the keyboard (at most two
 * edits, and fewer than half the name's length); null otherwise. Ties go to the earlier name.
 */
export function closestName(given: string, known: readonly string[]): string | null {
  let best: { name: string; distance: number } | null = null
  for (const name of known) {
    const distance = editDistance(given.toLowerCase(), name.toLowerCase())
    if (best === null || distance < best.distance) best = { name, distance }
  }
  if (best === null || best.distance > 2 || best.distance * 2 >= Math.max(given.length, best.name.length)) return null
  return best.name
}

/** Levenshtein distance: insertions, deletions and substitutions, one each. */
function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, index) => index)
  for (let i = 1; i <= a.length; i += 1) {
    const current = [i]
    for (let j = 1; j <= b.length; j += 1) {
      const substitution = (previous[j - 1] ?? 0) + (a[i - 1] === b[j - 1] ? 0 : 1)
      current.push(Math.min((previous[j] ?? 0) + 1, (current[j - 1] ?? 0) + 1, substitution))
    }
    previous = current
  }
  return previous[b.length] ?? 0
}
