/**
 * A fast, deterministic 53-bit string hash (cyrb53), hex encoded. Used to notice that stored content changed,
 * never for security.
 */
export function contentHash(text: string): string {
  return contentHashOfParts([text])
}

/** `contentHash` of the texts joined, without joining them (a serialized prompt is megabytes of chunks). */
export function contentHashOfParts(texts: readonly string[]): string {
  let h1 = 0xdeadbeef
  let h2 = 0x41c6ce57
  for (const text of texts) {
    for (let index = 0; index < text.length; index += 1) {
      const code = text.charCodeAt(index)
      h1 = Math.imul(h1 ^ code, 2654435761)
      h2 = Math.imul(h2 ^ code, 1597334677)
    }
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909)
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909)
  const value = 4294967296 * (2097151 & h2) + (h1 >>> 0)
  return value.toString(16).padStart(14, "0")
}
