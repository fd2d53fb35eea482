/**
 * A read-only call that found nothing (recognizer `negative-results`): an empty file, a search with no match, a
 * status or diff command that printed nothing. The agent later acts on exactly that absence ("the config is empty, so
 * the defaults apply"; "nothing calls it, so it can go"), so the record says it in one line. Pure.
 */
import type { OutputKeep } from "../session/host-tools.js"
import { plainText } from "./plain-text.js"

export type NegativeResultInput = {
  /** The output as the model read it, framing removed. */
  output: string
  keep: OutputKeep
  /** The call exited non-zero with no text but an exit note: a search's "no matches". */
  noMatches: boolean
}

/**
 * What the call found nothing of, as one short phrase (`no matches`, `empty`, `no output`) or the output's own line
 * when it is a single line that says so (`No files found`); null when the output holds anything else.
 */
export function negativeResult(input: NegativeResultInput): string | null {
  if (input.noMatches) return "no matches"
  const lines = plainText(input.output)
    .split("\n")
    .map((line) => line.trim())
    .filter((line) => line !== "" && !READ_WRAPPER.test(line) && !EXIT_ZERO.test(line))
  if (lines.length === 0) return input.keep === "document" ? "empty" : input.keep === "search" ? "no matches" : "no output"
  const only = lines[0] as string
  return lines.length === 1 && NOTHING_FOUND.test(only) ? only : null
}

/**
 * Lines a read tool wraps a file in (OpenCode's `<path>`, `<type>`, `<content>` and its end note, a `<file>` block):
 * they say where the text is, not what it says. `(End of file - total 0 lines)` is such a line.
 */
const READ_WRAPPER = /^(?:<\/?(?:path|type|content|file)>.*|\((?:End of file|End of buffer)\b[^)]*\))$/

/** A line that only says the command exited cleanly. */
const EXIT_ZERO = /^\(?(?:Command )?exit(?:ed with)?(?: code| status)?:?\s*0\)?\.?$|^Exit code:? 0$/i

/** A single line stating that nothing was found: the tool's own words for an absence. */
const NOTHING_FOUND =
  /^(?:no (?:files?|matches|match|results?|entries|items?|lines?|changes|differences|occurrences|references)(?: (?:were |was )?found)?(?: for .{1,80})?|nothing (?:found|to commit)\b.{0,80}|0 (?:matches|results|files|items|occurrences)(?: found)?|found 0 (?:matches|results|files))\.?$/i
