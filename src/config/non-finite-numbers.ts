import { visit, type JSONPath } from "jsonc-parser"

/** A number literal a double cannot hold (`1e400` parses as Infinity), with its path and its spelling in the file. */
export type NonFiniteNumber = { path: JSONPath; written: string }

/**
 * The number literals of a JSONC text that parse to ±Infinity. JSON has no Infinity, so such a value was never what
 * the user meant, and `JSON.stringify` would show it as `null`. Call only on text whose nesting is bounded (the
 * visitor recurses per level).
 */
export function nonFiniteNumbers(text: string): NonFiniteNumber[] {
  const found: NonFiniteNumber[] = []
  visit(
    text,
    {
      onLiteralValue(value: unknown, offset, length, _line, _column, pathSupplier) {
        if (typeof value === "number" && !Number.isFinite(value)) found.push({ path: pathSupplier(), written: text.slice(offset, offset + length) })
      },
    },
    { allowTrailingComma: true, disallowComments: false },
  )
  return found
}
