/**
 * How much of a request a provider's prompt cache could reuse from the request before it, at two granularities. A
 * request's elements are its serialized tool definitions followed by each message serialized in order
 * (`requestElements`). Element level (whole messages, Anthropic's content-block boundaries): the leading elements
 * equal to the previous request's; a prefix break is any change to an earlier element. Byte level (OpenAI, which
 * caches the longest shared prefix of the prompt's bytes): those elements plus the shared start of the first element
 * that differs.
 */

/** The parts of a chat request that make up its prompt, as the bytes that are compared. */
export type PromptRequest = { messages: readonly unknown[]; tools?: readonly unknown[] | undefined }

/** A request's elements: `JSON.stringify(tools ?? [])`, then `JSON.stringify(message)` for each message in order. */
export function requestElements(request: PromptRequest): string[] {
  return [JSON.stringify(request.tools ?? []), ...request.messages.map((message) => JSON.stringify(message))]
}

/** How one request relates to the previous main request. */
export type PrefixComparison = {
  /** Leading elements of the current request equal, byte for byte, to the previous request's at the same index. */
  matchingElements: number
  /** UTF-8 bytes of those leading elements. */
  prefixBytes: number
  /**
   * UTF-16 code units at the start of the current request's first differing element (index `matchingElements`) that
   * equal the start of the previous request's element there, ending on a character boundary; 0 when one request ends
   * at `matchingElements` (nothing differs inside an element).
   */
  partialElementChars: number
  /** UTF-8 bytes of those characters: prefixBytes plus this is the shared byte prefix. */
  partialElementBytes: number
  /** UTF-8 bytes of all the current request's elements. */
  totalBytes: number
  /** prefixBytes / totalBytes: the element-level cache-reusable share (1 for an empty request). */
  share: number
  /**
   * True when the previous request is not a prefix of this one: some element of the previous request differs from
   * this request's element at the same index, or this request has fewer elements.
   */
  isBreak: boolean
}

/** Compares the elements of a request with those of the request before it. */
export function comparePrefix(options: { previous: readonly string[]; current: readonly string[] }): PrefixComparison {
  const { previous, current } = options
  let matchingElements = 0
  while (
    matchingElements < previous.length &&
    matchingElements < current.length &&
    previous[matchingElements] === current[matchingElements]
  ) {
    matchingElements += 1
  }
  const sizes = current.map(utf8Length)
  const prefixBytes = sum(sizes.slice(0, matchingElements))
  const totalBytes = sum(sizes)
  const differing = current[matchingElements]
  const before = previous[matchingElements]
  const partialElementChars = differing === undefined || before === undefined ? 0 : sharedStartLength(before, differing)
  return {
    matchingElements,
    prefixBytes,
    partialElementChars,
    partialElementBytes: utf8Length(differing?.slice(0, partialElementChars) ?? ""),
    totalBytes,
    share: totalBytes === 0 ? 1 : prefixBytes / totalBytes,
    isBreak: matchingElements < previous.length,
  }
}

/**
 * The length, in UTF-16 code units, of the longest common start of two texts that ends on a character boundary: a
 * divergence inside a surrogate pair gives the pair back. Two different characters that share leading UTF-8 bytes
 * (`§` and `¶` both start with 0xC2) count as differing from their first byte, so the byte prefix can come out a
 * byte or two short of the exact one; a cache that works in 128-token steps never sees the difference.
 */
export function sharedStartLength(previous: string, current: string): number {
  const limit = Math.min(previous.length, current.length)
  let length = 0
  while (length < limit && previous.charCodeAt(length) === current.charCodeAt(length)) length += 1
  if (length > 0 && length < current.length && isHighSurrogate(current.charCodeAt(length - 1))) length -= 1
  return length
}

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff
}

const encoder = new TextEncoder()

function utf8Length(text: string): number {
  return encoder.encode(text).length
}

function sum(values: readonly number[]): number {
  return values.reduce((total, value) => total + value, 0)
}
