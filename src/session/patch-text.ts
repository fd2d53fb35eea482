/**
 * Reads the files a patch changes and the lines it adds: OpenCode's `apply_patch` format (`*** Begin Patch`,
 * `*** Add File: p`, `*** Update File: p`, `*** Move to: q`, `*** Delete File: p`, `@@` hunks, `+`/`-` lines) and
 * unified diffs (`--- a/p`, `+++ b/p`, `/dev/null` for an added or deleted file). Malformed text yields what could be
 * read, never an exception.
 */

export type PatchFile = { path: string; operation: "add" | "update" | "delete"; added: string[]; removed: string[] }

/** Patches are read this far (a 10 MB patch is bounded like any other content). */
const MAX_PATCH_CHARS = 400_000

export function patchFiles(text: string): PatchFile[] {
  const files: PatchFile[] = []
  const lines = text.slice(0, MAX_PATCH_CHARS).split("\n")
  let current: PatchFile | null = null
  for (let index = 0; index < lines.length; index += 1) {
    const line = lines[index] ?? ""
    const header = /^\*\*\* (Add|Update|Delete) File:\s*(\S.*?)\s*$/.exec(line)
    if (header?.[1] !== undefined && header[2] !== undefined) {
      current = { path: header[2], operation: header[1].toLowerCase() as PatchFile["operation"], added: [], removed: [] }
      files.push(current)
      continue
    }
    const moved = /^\*\*\* Move to:\s*(\S.*?)\s*$/.exec(line)
    if (moved?.[1] !== undefined && current !== null) {
      current.path = moved[1]
      continue
    }
    const unified = unifiedHeader(lines, index)
    if (unified !== undefined) {
      current = unified
      if (current !== null) files.push(current)
      index += 1
      continue
    }
    if (line.startsWith("*** ") || line.startsWith("@@") || current === null) continue
    if (line.startsWith("+")) current.added.push(line.slice(1))
    else if (line.startsWith("-")) current.removed.push(line.slice(1))
  }
  return files
}

/**
 * The file a unified diff's header at `index` names (`--- old`, `+++ new`): added from /dev/null, deleted to
 * /dev/null, else updated; null for a header naming no file, undefined when this is no header. Inside a hunk, a
 * removed `-- comment` followed by an added `++ x` are lines, not a header: a header there is followed by `@@`.
 */
function unifiedHeader(lines: readonly string[], index: number): PatchFile | null | undefined {
  const oldPath = diffPath(lines[index] ?? "", "---")
  const newPath = diffPath(lines[index + 1] ?? "", "+++")
  if (oldPath === null || newPath === null) return undefined
  const inHunk = /^[ +\-@]/.test(lines[index - 1] ?? "")
  const after = lines[index + 2]
  if (inHunk && after !== undefined && after !== "" && !after.startsWith("@@")) return undefined
  if (newPath === "/dev/null") return oldPath === "/dev/null" ? null : { path: oldPath, operation: "delete", added: [], removed: [] }
  return { path: newPath, operation: oldPath === "/dev/null" ? "add" : "update", added: [], removed: [] }
}

/** The path of a `--- ` or `+++ ` header line, its `a/` or `b/` prefix and a tab-separated timestamp removed. */
function diffPath(line: string, marker: "---" | "+++"): string | null {
  if (!line.startsWith(`${marker} `)) return null
  const path = /^(\S.*?)(?:\t.*)?\s*$/.exec(line.slice(4))?.[1]
  if (path === undefined) return null
  return path === "/dev/null" ? path : path.replace(/^[ab]\//, "")
}
