import type { MessageMemo } from "./message-memo.js"
import type { SerializedPrompt } from "./serialize-prompt.js"
import { utf8Length } from "./utf8-length.js"

/** Where two serialized prompts first differ, in UTF-8 bytes of `previous`; null when `previous` is a prefix of `current`. */
export function firstDivergence(previous: string, current: string): number | null {
  if (current.startsWith(previous)) return null
  let index = 0
  const limit = Math.min(previous.length, current.length)
  while (index < limit && previous.charCodeAt(index) === current.charCodeAt(index)) index += 1
  return utf8Length(previous.slice(0, index))
}

/**
 * `firstDivergence` of the two prompts joined, found chunk by chunk without joining them: equal leading chunks are
 * skipped by size, then the rest is compared from there in blocks (the provider's history message, a megabyte in a
 * long session, mostly differs only near its end) and character by character in the block that differs.
 */
export function promptDivergence(previous: SerializedPrompt, current: SerializedPrompt, memo: MessageMemo | null = null): number | null {
  if (previous === current) return null
  let offset = 0
  let index = 0
  // Leading chunks the current prompt took from this one by position are equal without a look (the memo's
  // `sharedLeading`, when the memo serialized it).
  const shared = memo?.sharedLeading.get(current) ?? null
  if (shared !== null && shared.from === previous && shared.count <= previous.chunks.length) {
    let rest = 0
    for (let at = shared.count; at < previous.chunks.length; at += 1) rest += previous.bytes[at] ?? 0
    index = shared.count
    offset = previous.totalBytes - rest
  }
  while (index < previous.chunks.length && previous.chunks[index] === current.chunks[index]) {
    offset += previous.bytes[index] ?? 0
    index += 1
  }
  // A cursor in each prompt from the first chunk that differs: chunk, character in it.
  let before = index
  let at = 0
  let now = index
  let nowAt = 0
  while (before < previous.chunks.length) {
    const chunk = previous.chunks[before] as string
    const other = current.chunks[now]
    if (other === undefined) return offset + utf8Length(chunk.slice(0, at))
    const length = Math.min(chunk.length - at, other.length - nowAt)
    const same = sameLength(chunk, at, other, nowAt, length)
    if (same < length) return offset + utf8Length(chunk.slice(0, at + same))
    at += length
    nowAt += length
    if (at === chunk.length) {
      offset += previous.bytes[before] ?? 0
      before += 1
      at = 0
    }
    if (nowAt === other.length) {
      now += 1
      nowAt = 0
    }
  }
  return null
}

/** How many characters `a` from `at` and `b` from `bAt` share, up to `length`: whole blocks first, then one by one. */
function sameLength(a: string, at: number, b: string, bAt: number, length: number): number {
  let same = 0
  while (same + COMPARE_BLOCK <= length && a.slice(at + same, at + same + COMPARE_BLOCK) === b.slice(bAt + same, bAt + same + COMPARE_BLOCK)) {
    same += COMPARE_BLOCK
  }
  while (same < length && a.charCodeAt(at + same) === b.charCodeAt(bAt + same)) same += 1
  return same
}

/** Characters compared as one string before the comparison goes character by character. */
const COMPARE_BLOCK = 4096
