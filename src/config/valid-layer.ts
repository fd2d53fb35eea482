import { parse as parseJsonc, printParseErrorCode, stripComments, type ParseError } from "jsonc-parser"
import type { z } from "zod"
import type { ConfigDiagnostic } from "./config-diagnostic.js"
import { getPath, isJsonObject, withoutPaths, type JsonObject } from "./json-path.js"
import { tooDeepOffset } from "./nesting-depth.js"
import { nonFiniteNumbers } from "./non-finite-numbers.js"
import { ConfigSchema } from "./schema.js"
import { closestName } from "./closest-name.js"
import { knownKeysAt } from "./known-keys.js"

/** The deepest nesting a config file may have (the schema needs 3); deeper files are refused before parsing. */
export const MAX_CONFIG_DEPTH = 64
/** Refused values named per file; the rest are counted in one more diagnostic. */
export const MAX_DIAGNOSTICS_PER_FILE = 20

/**
 * The parts of one file's text that fit the schema; everything refused is reported (at most
 * MAX_DIAGNOSTICS_PER_FILE values by name). A file that is not JSONC, nested deeper than MAX_CONFIG_DEPTH or not an
 * object is refused whole; a refused value is dropped (a list keeps its other entries).
 */
export function validLayer(file: string, text: string, diagnostics: ConfigDiagnostic[]): JsonObject {
  // A file with nothing but whitespace and comments sets nothing (a user may comment everything out).
  if (stripComments(text).trim().length === 0) return {}
  const deep = tooDeepOffset(text, MAX_CONFIG_DEPTH)
  if (deep !== null) {
    const { line, column } = lineAndColumn(text, deep)
    const message = `${file}:${line}:${column}: nested more than ${MAX_CONFIG_DEPTH} levels deep; the whole file is ignored`
    diagnostics.push(fileDiagnostic(file, `JSONC nested at most ${MAX_CONFIG_DEPTH} levels deep`, message))
    return {}
  }
  const errors: ParseError[] = []
  const value: unknown = parseJsonc(text, errors, { allowTrailingComma: true, disallowComments: false })
  if (errors.length > 0) {
    const first = errors[0] as ParseError
    const { line, column } = lineAndColumn(text, first.offset)
    const message = `${file}:${line}:${column}: not valid JSONC (${printParseErrorCode(first.error)}); the whole file is ignored`
    diagnostics.push(fileDiagnostic(file, "valid JSONC (JSON with comments)", message))
    return {}
  }
  if (!isJsonObject(value)) {
    diagnostics.push(fileDiagnostic(file, "an object", `${file}: expected an object at the top level; the whole file is ignored`))
    return {}
  }
  // Diagnostics are built for the values named (the rest are only counted): a suggestion costs an edit distance per key.
  const refused: (() => ConfigDiagnostic)[] = []
  // A number beyond a double is refused as such (zod would call Infinity a wrong type, JSON.stringify shows null).
  const infinite = nonFiniteNumbers(text).filter(({ path }) => typeof getPath(value, path) === "number")
  for (const { path, written } of infinite) refused.push(() => valueDiagnostic(file, path, { shown: written, nonFinite: true }))
  let layer = withoutPaths(value, infinite.map(({ path }) => path))
  let valid = false
  // Each round removes at least one refused value, so this ends; the bound guards against a schema bug.
  for (let round = 0; round < 100 && !valid; round += 1) {
    const result = ConfigSchema.safeParse(layer)
    valid = result.success
    if (result.success) continue
    const paths = result.error.issues.flatMap((issue) => issuePaths(issue).map((path) => ({ path, issue })))
    for (const { path, issue } of paths) {
      const shown = shownValue(getPath(layer, path))
      refused.push(() =>
        issue.code === "unrecognized_keys" ? unknownKeyDiagnostic(file, path, shown) : valueDiagnostic(file, path, { shown, expected: expectedText(issue) }),
      )
    }
    layer = withoutPaths(layer, paths.map(({ path }) => path))
  }
  diagnostics.push(...refused.slice(0, MAX_DIAGNOSTICS_PER_FILE).map((diagnostic) => diagnostic()))
  const unnamed = refused.length - MAX_DIAGNOSTICS_PER_FILE
  if (unnamed > 0) {
    const message = `${file}: ${unnamed.toLocaleString("en-US")} more values are refused (the first ${MAX_DIAGNOSTICS_PER_FILE} are named above)`
    diagnostics.push(fileDiagnostic(file, "fewer problems", message))
  }
  return valid ? layer : {}
}

/** A diagnostic about a whole file (key and value null). */
export function fileDiagnostic(file: string, expected: string, message: string): ConfigDiagnostic {
  return { severity: "error", file, key: null, value: null, expected, message }
}

function issuePaths(issue: z.core.$ZodIssue): PropertyKey[][] {
  if (issue.code === "unrecognized_keys") return issue.keys.map((key) => [...issue.path, key])
  return [issue.path]
}

function expectedText(issue: z.core.$ZodIssue): string {
  if (issue.code === "invalid_value") return `one of ${issue.values.map((value) => JSON.stringify(value)).join(", ")}`
  if (issue.code === "invalid_type") return `a value of type ${issue.expected}`
  return issue.message
    .replace(/^Invalid input: /, "")
    .replace(/^Too (small|big): /, "")
    .replace(/^expected /, "")
}

function valueDiagnostic(
  file: string,
  path: readonly PropertyKey[],
  refusal: { shown: string; expected: string } | { shown: string; nonFinite: true },
): ConfigDiagnostic {
  const key = path.map(String).join(".")
  const value = clipped(refusal.shown)
  const expected = "expected" in refusal ? refusal.expected : "a finite number"
  const problem = "expected" in refusal ? `expected ${expected}` : "which is not a finite number (beyond ±1.8e308)"
  // A list element goes alone; any other value makes way for the next file's value or the default.
  const fallback = typeof path.at(-1) === "number" ? "the list keeps its other entries" : "a lower-precedence file or the default applies"
  return {
    severity: "error",
    file,
    key,
    value,
    expected,
    message: `${file}: key "${key}" has value ${value}, ${problem}; this value is ignored (${fallback})`,
  }
}

/** A key the schema does not have, with the known key of the same object it is nearest to, when one is a slip away. */
function unknownKeyDiagnostic(file: string, path: readonly PropertyKey[], shown: string): ConfigDiagnostic {
  const key = path.map(String).join(".")
  const parent = path.slice(0, -1).map(String)
  const near = closestName(String(path.at(-1)), knownKeysAt(parent))
  const suggestion = near === null ? null : [...parent, near].join(".")
  const hint = suggestion === null ? "check the spelling against docs/configuration.md" : `did you mean "${suggestion}"?`
  return {
    severity: "error",
    file,
    key,
    value: clipped(shown),
    expected: `a known key (${hint})`,
    message: `${file}: unknown key "${key}" (${hint}); its value ${clipped(shown)} is ignored`,
  }
}

function clipped(shown: string): string {
  return shown.length > 80 ? `${shown.slice(0, 77)}...` : shown
}

function shownValue(value: unknown): string {
  return value === undefined ? "undefined" : (JSON.stringify(value) ?? String(value))
}

function lineAndColumn(text: string, offset: number): { line: number; column: number } {
  const before = text.slice(0, offset)
  const line = before.split("\n").length
  const column = offset - before.lastIndexOf("\n")
  return { line, column }
}
