import type { TokenCounter } from "../../src/tokens/token-counter.js"

/** Token counts of request elements (see prefix-share.ts), each distinct element counted once. */
export type ElementTokenCounter = { count(elements: readonly string[]): number[] }

/**
 * The sandbox's random directory name (mkdtemp's six characters; OpenCode's and Pi's sandboxes), which tool outputs
 * (and Pi's system prompt) repeat in every path. Its
 * characters tokenize differently from run to run, so it is counted as one fixed name: otherwise the usage the mock
 * reports, and with it OpenCode's compaction points, would drift by a few tokens between identical runs.
 */
const SANDBOX_NAME = /magic-context-(?:pi-)?e2e-[A-Za-z0-9]{6}/g
const FIXED_SANDBOX_NAME = "magic-context-e2e-SANDBX"

/**
 * Counts each element with the project's token counter (o200k_base in the benchmark). Consecutive requests repeat
 * almost all their elements, so counts are cached by element text; the cache lives as long as one benchmark run.
 */
export function createElementTokenCounter(counter: TokenCounter): ElementTokenCounter {
  const cache = new Map<string, number>()
  const countOne = (element: string): number => {
    const known = cache.get(element)
    if (known !== undefined) return known
    const tokens = counter.count(element.replace(SANDBOX_NAME, FIXED_SANDBOX_NAME))
    cache.set(element, tokens)
    return tokens
  }
  return { count: (elements) => elements.map(countOne) }
}
