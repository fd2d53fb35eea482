import { createScanner } from "jsonc-parser"

// jsonc-parser's SyntaxKind is a const enum, which this build (verbatimModuleSyntax) cannot read at run time.
const OPEN_BRACE = 1
const CLOSE_BRACE = 2
const OPEN_BRACKET = 3
const CLOSE_BRACKET = 4
const END = 17

/**
 * Where a JSONC text first opens an object or array deeper than `maxDepth` (its offset), or null. A linear scan of
 * tokens (strings and comments skipped), so it is safe on any input: jsonc-parser's parser recurses per level and
 * overflows the stack on ~10,000 nested arrays, which stopped `magic-context config` and disabled the plugin.
 */
export function tooDeepOffset(text: string, maxDepth: number): number | null {
  const scanner = createScanner(text, false)
  let depth = 0
  for (let kind: number = scanner.scan(); kind !== END; kind = scanner.scan()) {
    if (kind === OPEN_BRACE || kind === OPEN_BRACKET) {
      depth += 1
      if (depth > maxDepth) return scanner.getTokenOffset()
    }
    if (kind === CLOSE_BRACE || kind === CLOSE_BRACKET) depth = Math.max(0, depth - 1)
  }
  return null
}
