/**
 * Reads the files a patch changes and the lines it adds: OpenCode's `apply_patch` format (`*** Begin Patch`,
 * `*** Add File: p`, `*** Update File: p`, `*** Move to: q`, `*** Delete File: p`, `@@` hunks, `+`/`-` lines) and
 * unified diffs (`--- a/p`, `+++ b/p`). Malformed text yields what could be read, never an exception.
 */

export type PatchFile = { path: string; operation: "add" | "update" | "delete"; added: string[]; removed: string[] }

/** Patches are read this far (a 10 MB patch is bounded like any other content). */
const MAX_PATCH_CHARS = 400_000

export function patchFiles(text: string): PatchFile[] {
  const files: PatchFile[] = []
  let current: PatchFile | null = null
  for (const line of text.slice(0, MAX_PATCH_CHARS).split("\n")) {
    const header = /^\*\*\* (Add|Update|Delete) File:\s*(.+?)\s*$/.exec(line)
    if (header?.[1] !== undefined && header[2] !== undefined) {
      current = { path: header[2], operation: header[1].toLowerCase() as PatchFile["operation"], added: [], removed: [] }
      files.push(current)
      continue
    }
    const moved = /^\*\*\* Move to:\s*(.+?)\s*$/.exec(line)
    if (moved?.[1] !== undefined && current !== null) {
      current.path = moved[1]
      continue
    }
    const unified = /^\+\+\+ (?:b\/)?(.+?)(?:\t.*)?\s*$/.exec(line)
    if (unified?.[1] !== undefined && unified[1] !== "/dev/null") {
      current = { path: unified[1], operation: "update", added: [], removed: [] }
      files.push(current)
      continue
    }
    if (line.startsWith("--- ") || line.startsWith("*** ") || line.startsWith("@@") || current === null) continue
    if (line.startsWith("+")) current.added.push(line.slice(1))
    else if (line.startsWith("-")) current.removed.push(line.slice(1))
  }
  return files
}
