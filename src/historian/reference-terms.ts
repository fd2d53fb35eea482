/**
 * The terms by which recent conversation refers back to older material: names, paths, options, identifiers and
 * content words, lowercased, each with its parts (`--chapters-file` also gives `chapters` and `file`). Common
 * English words say nothing about which episode is meant and are left out; how rare a term is in the session decides
 * the rest (`render/recall-by-reference.ts`). Pure.
 */

/** A term shorter than this says too little to point at one line of an old episode. */
export const MIN_TERM_CHARS = 4

/** Words too common in coding conversation to point anywhere, whatever the session. */
const COMMON_WORDS: ReadonlySet<string> = new Set(
  (
    "this that with from have will would should could there their about which when what where then than them they " +
    "were been into also only just like some more most other each make made need needs used using file files line " +
    "lines code true false null none test tests done work does here these those after before first last because " +
    "still since while want your okay sure good well very much many same such both over under onto upon again " +
    "already"
  ).split(" "),
)

/** A run of word characters with inner `-`, `.`, `/`, `:` or `_` joints (a path, an option, a dotted name). */
const TERM = /[A-Za-z0-9_]+(?:[-./:][A-Za-z0-9_]+)*/g
/** Where a compound term splits into its parts. */
const JOINT = /[-./:_]+/

/** The distinct terms of `text` (at least MIN_TERM_CHARS long, not common words, not bare numbers), lowercased. */
export function referenceTerms(text: string): Set<string> {
  const terms = new Set<string>()
  for (const match of text.matchAll(TERM)) {
    const whole = match[0].toLowerCase()
    addTerm(terms, whole)
    if (JOINT.test(whole)) for (const piece of whole.split(JOINT)) addTerm(terms, piece)
  }
  return terms
}

function addTerm(terms: Set<string>, term: string): void {
  if (term.length < MIN_TERM_CHARS || COMMON_WORDS.has(term) || /^[0-9]+$/.test(term)) return
  terms.add(term)
}

/** A term's hash, computed once and looked up in many filters (`TermFilter.has`). */
export type TermKey = number

/** A set of terms as bits of their hashes, small enough to keep per episode: "no" is exact, "yes" may be wrong. */
export type TermFilter = { has(key: TermKey): boolean }

/** The filter's size in bits: an episode's few thousand terms set about a tenth of them, two bits each. */
const FILTER_BITS = 1 << 15

/**
 * The filter of the terms of `text`: every term `referenceTerms` gives, and the common words it leaves out (a filter
 * only answers for the terms it is asked about; building it makes no set of strings).
 */
export function termFilter(text: string): TermFilter {
  const bits = new Uint32Array(FILTER_BITS / 32)
  const set = (bit: number): void => {
    bits[bit >>> 5] = (bits[bit >>> 5] as number) | (1 << (bit & 31))
  }
  const add = (term: string): void => {
    if (term.length < MIN_TERM_CHARS) return
    const key = termKey(term)
    set(firstBit(key))
    set(secondBit(key))
  }
  const isSet = (bit: number): boolean => ((bits[bit >>> 5] as number) & (1 << (bit & 31))) !== 0
  for (const match of text.toLowerCase().matchAll(TERM)) {
    const whole = match[0]
    add(whole)
    if (JOINT.test(whole)) for (const piece of whole.split(JOINT)) add(piece)
  }
  return { has: (key) => isSet(firstBit(key)) && isSet(secondBit(key)) }
}

/** A term's hash (FNV-1a over 32 bits). */
export function termKey(term: string): TermKey {
  let hash = 0x811c9dc5
  for (let index = 0; index < term.length; index += 1) hash = Math.imul(hash ^ term.charCodeAt(index), 0x01000193)
  return hash >>> 0
}

function firstBit(key: TermKey): number {
  return key & (FILTER_BITS - 1)
}

/** A second position from the same hash, mixed. */
function secondBit(key: TermKey): number {
  const mixed = Math.imul(key ^ (key >>> 16), 0x45d9f3b)
  return ((mixed ^ (mixed >>> 13)) >>> 0) & (FILTER_BITS - 1)
}
