import { parse as parseJsonc, printParseErrorCode, type ParseError } from "jsonc-parser"
import { isJsonObject, type JsonObject } from "../config/json-path.js"
import { fail, ok, type Result } from "../result.js"

/**
 * A JSONC file's text as an object, or the error naming the file, the line and column of the first problem and what
 * was expected there (`opencode.json:3:5: not valid JSONC (CommaExpected)`). Pure.
 */
export function parseJsoncObject(file: string, text: string): Result<JsonObject> {
  const errors: ParseError[] = []
  const value: unknown = parseJsonc(text, errors, { allowTrailingComma: true })
  const first = errors[0]
  if (first) {
    const { line, column } = lineAndColumn(text, first.offset)
    return fail(`${file}:${line}:${column}: not valid JSONC (${printParseErrorCode(first.error)})`)
  }
  if (!isJsonObject(value)) return fail(`${file}: expected a JSON object, found ${Array.isArray(value) ? "a list" : JSON.stringify(value)}`)
  return ok(value)
}

/** The 1-based line and column of `offset` in `text`. */
export function lineAndColumn(text: string, offset: number): { line: number; column: number } {
  const before = text.slice(0, offset)
  const line = before.split("\n").length
  return { line, column: offset - before.lastIndexOf("\n") }
}
