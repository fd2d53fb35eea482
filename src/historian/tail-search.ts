/**
 * Whether identifiers occur in one text (the newest part of a session), for many identifiers that mostly do not:
 * a long session names thousands of paths and commands, and most never reappear. Each identifier is looked for in
 * the text once; before that, a filter of the text's windows of `window` characters says, without a false "no",
 * whether its first, middle and last windows occur somewhere, and only then does the text itself decide.
 */
export type TailSearch = {
  /** True when `identifier` (at least `window` characters long) occurs in the text. */
  occurs(identifier: string): boolean
}

export function createTailSearch(text: string, window: number): TailSearch {
  const filter = windowFilter(text, window)
  const found = new Map<string, boolean>()
  return {
    occurs(identifier) {
      const known = found.get(identifier)
      if (known !== undefined) return known
      const last = identifier.length - window
      const result =
        last >= 0 &&
        filter.has(identifier, 0) &&
        filter.has(identifier, last) &&
        filter.has(identifier, Math.floor(last / 2)) &&
        text.includes(identifier)
      found.set(identifier, result)
      return result
    },
  }
}

/** The filter's size in bits: a few tens of thousands of windows set under 5% of them (a power of two). */
const FILTER_BITS = 1 << 20

/** A set of the text's windows as bits of their hashes: "no" is exact, "yes" leaves the text to decide. */
function windowFilter(text: string, window: number): { has(value: string, at: number): boolean } {
  const bits = new Uint32Array(FILTER_BITS / 32)
  for (let at = 0; at + window <= text.length; at += 1) {
    const bit = windowHash(text, at, window) & (FILTER_BITS - 1)
    bits[bit >>> 5] = (bits[bit >>> 5] as number) | (1 << (bit & 31))
  }
  return {
    has(value, at) {
      const bit = windowHash(value, at, window) & (FILTER_BITS - 1)
      return ((bits[bit >>> 5] as number) & (1 << (bit & 31))) !== 0
    },
  }
}

/** A hash of the `window` UTF-16 code units of `text` from `at` (FNV-1a over 32 bits, mixed at the end). */
function windowHash(text: string, at: number, window: number): number {
  let hash = 0x811c9dc5
  for (let index = at; index < at + window; index += 1) hash = Math.imul(hash ^ text.charCodeAt(index), 0x01000193)
  return (hash ^ (hash >>> 15)) >>> 0
}
