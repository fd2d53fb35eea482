import type { ErrorRecord } from "../store/error-repository.js"
import { formatAge } from "./format-age.js"

/** How many of the recent internal errors the report lists. */
const ERRORS_SHOWN = 5

/** The report's lines of recent internal errors (the newest first). Pure. */
export function errorLines(errors: readonly ErrorRecord[], now: number): string[] {
  if (errors.length === 0) return ["Recent internal errors: none"]
  return [
    "Recent internal errors (the session went on unchanged):",
    ...errors.slice(0, ERRORS_SHOWN).map((error) => `  ${formatAge(now - error.at)} ${error.hook}: ${error.message}`),
  ]
}

/** The report's lines of config problems (a file or value refused), none when there are none. Pure. */
export function configProblemLines(problems: readonly string[]): string[] {
  if (problems.length === 0) return []
  const heading = "Config problems (the defaults apply where a value was refused):"
  return [heading, ...problems.map((problem) => `  ${problem}`)]
}
