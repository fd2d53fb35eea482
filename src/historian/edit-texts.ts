/**
 * What an edit call wrote, read from its input in each host's spelling (OpenCode's `newString`, Claude Code's
 * `new_string`, a patch's added lines, a write's content, SWE-agent's edit command), and the lines DENSE keeps of it.
 * Pure.
 */
import type { HostToolRow } from "../session/host-tools.js"
import type { PatchFile } from "../session/patch-text.js"
import type { Recognizers } from "../session/recognizers.js"
import { keptAddedLines } from "./output-lines.js"

/** An edit keeps at most this many added lines per file in DENSE, and a call at most EDIT_FILES files. */
export const ADDED_LINES_PER_FILE = 4
export const EDIT_FILES = 4

/** The text an edit wrote and the text it replaced, or null when the call wrote none. */
export function editTexts(
  row: HostToolRow,
  patch: readonly PatchFile[],
  tool: string,
  input: Record<string, unknown>,
  command: string | null,
): { newText: string; oldText: string } | null {
  const newText = firstString(input, ["newText", "new_string", "newString", "new_str"])
  if (newText !== null) {
    return { newText, oldText: firstString(input, ["oldText", "old_string", "oldString", "old_str"]) ?? "" }
  }
  const edits = input["edits"]
  if (Array.isArray(edits)) {
    const pairs = edits.filter((edit): edit is Record<string, unknown> => edit !== null && typeof edit === "object")
    // OpenCode's multiedit spells the keys `newString`, Claude Code's MultiEdit `new_string`.
    const joined = (keys: readonly string[]): string => pairs.map((edit) => firstString(edit, keys) ?? "").join("\n")
    if (pairs.length > 0) return { newText: joined(["newString", "new_string"]), oldText: joined(["oldString", "old_string"]) }
  }
  if (patch.length > 0) {
    return { newText: patch.flatMap((file) => file.added).join("\n"), oldText: patch.flatMap((file) => file.removed).join("\n") }
  }
  const content = row.writes ? firstString(input, ["content", "new_source", "file_text"]) : null
  if (content !== null) return { newText: content, oldText: "" }
  if (tool === "edit" && command !== null && typeof input["command"] === "string") {
    const body = input["command"].split("\n").slice(1).join("\n").replace(/\nend_of_edit\s*$/, "")
    return body.trim() === "" ? null : { newText: body, oldText: "" }
  }
  return null
}

/** Each file an edit changed with the lines DENSE keeps of what it added. */
export function addedLines(
  row: HostToolRow,
  patch: readonly PatchFile[],
  paths: readonly string[],
  edit: { newText: string; oldText: string } | null,
  recognizers: Recognizers,
): { path: string; lines: string[] }[] {
  if (!row.writes) return []
  if (patch.length > 0) {
    return patch.slice(0, EDIT_FILES).map((file) => ({ path: file.path, lines: keptAddedLines(file.added, ADDED_LINES_PER_FILE, recognizers) }))
  }
  if (edit === null || paths[0] === undefined) return []
  const old = new Set(edit.oldText.split("\n").map((line) => line.trim()))
  const added = edit.newText.split("\n").filter((line) => !old.has(line.trim()))
  return [{ path: paths[0], lines: keptAddedLines(added, ADDED_LINES_PER_FILE, recognizers) }]
}

/** The first of `keys` whose value is a non-blank string. */
export function firstString(input: Record<string, unknown>, keys: readonly string[]): string | null {
  for (const key of keys) {
    const value = input[key]
    if (typeof value === "string" && value.trim() !== "") return value
  }
  return null
}
