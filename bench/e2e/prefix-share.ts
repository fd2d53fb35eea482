/**
 * How much of a request a provider's prompt cache could reuse from the request before it. Providers cache by exact
 * prefix, in blocks that end on message boundaries, so the comparison is element by element: a request's elements
 * are its serialized tool definitions followed by each message serialized in order (`requestElements`).
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
  /** UTF-8 bytes of all the current request's elements. */
  totalBytes: number
  /** prefixBytes / totalBytes: the cache-reusable share (1 for an empty request). */
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
  return {
    matchingElements,
    prefixBytes,
    totalBytes,
    share: totalBytes === 0 ? 1 : prefixBytes / totalBytes,
    isBreak: matchingElements < previous.length,
  }
}

const encoder = new TextEncoder()

function utf8Length(text: string): number {
  return encoder.encode(text).length
}

function sum(values: readonly number[]): number {
  return values.reduce((total, value) => total + value, 0)
}
