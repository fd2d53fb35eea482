/**
 * The first `length` entries of an array a pass built and left for the next one (a view's, a measure's): the array
 * itself when that is all of it and `whole`, else a copy to add to. `whole`: the caller adds nothing to it (such
 * arrays are never changed once built), or the array is one nothing else reads any more, which the caller goes on
 * adding to.
 */
export function leading<T>(array: readonly T[], length: number, whole: boolean): T[] {
  return whole && length === array.length ? (array as T[]) : array.slice(0, length)
}
