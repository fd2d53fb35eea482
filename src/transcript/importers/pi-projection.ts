/**
 * Which entries of a Pi session reach the model, by Pi's own rules (`buildSessionProjection` in
 * `@earendil-works/pi-coding-agent` 1.x, `core/session-manager.js`). Pure.
 *
 * - Entries with ids (session versions 2 and 3) form a tree: the context is the path from the file's last entry up to
 *   the root. Entries without ids (version 1) are one linear path.
 * - The newest `compaction` on the path stands for everything before it except the kept range: the entries from its
 *   `firstKeptEntryId` up to it (system messages there excluded), then every entry after it. In a session of version 1
 *   the compaction names that entry by `firstKeptEntryIndex`, its line (Pi's migration to version 2 turns it into the
 *   entry's new id).
 * - A `context_edit` in that selection edits one earlier entry (`targetId`) for the model: `replacement: null` omits
 *   it, otherwise its content is replaced. The newest edit of an entry wins.
 */

/** One session entry (a line after the header) as the projection needs it. */
export type PiEntry = {
  /** Its line in the file (the turn index of a message entry). */
  line: number
  type: string
  id: string | null
  parentId: string | null
  /** The entry's own fields. */
  record: Readonly<Record<string, unknown>>
}

/** What the newest `context_edit` of an entry does: leave it out, or replace its content. */
export type PiContextEdit = { kind: "omit" } | { kind: "replace"; content: unknown }

/** One entry in the model's context, with the edit Pi applies to it (if any). */
export type PiProjectedEntry = { entry: PiEntry; edit: PiContextEdit | null }

export function projectPiSession(entries: readonly PiEntry[]): PiProjectedEntry[] {
  const selected = compactedContext(activePath(entries))
  const edits = new Map<string, PiContextEdit>()
  for (const entry of selected) {
    if (entry.type !== "context_edit") continue
    const target = entry.record["targetId"]
    if (typeof target === "string") edits.set(target, contextEdit(entry.record["replacement"]))
  }
  return selected.flatMap((entry, index): PiProjectedEntry[] => {
    // An older compaction kept inside the newest one's retained range contributes nothing.
    if (entry.type === "compaction" && index > 0) return []
    return [{ entry, edit: entry.id === null ? null : (edits.get(entry.id) ?? null) }]
  })
}

/** The entries from the root to the file's last entry (all of them, in order, when the session has no ids). */
function activePath(entries: readonly PiEntry[]): PiEntry[] {
  const leaf = entries.at(-1)
  if (leaf === undefined || leaf.id === null) return entries.filter((entry) => entry.id === null)
  const byId = new Map<string, PiEntry>()
  for (const entry of entries) if (entry.id !== null) byId.set(entry.id, entry)
  const path: PiEntry[] = []
  const visited = new Set<string>()
  let current: PiEntry | undefined = leaf
  while (current !== undefined && current.id !== null && !visited.has(current.id)) {
    visited.add(current.id)
    path.push(current)
    current = current.parentId === null ? undefined : byId.get(current.parentId)
  }
  return path.reverse()
}

function compactedContext(path: readonly PiEntry[]): PiEntry[] {
  let at = -1
  path.forEach((entry, index) => {
    if (entry.type === "compaction") at = index
  })
  const compaction = path[at]
  if (compaction === undefined) return [...path]
  const firstKept = compaction.record["firstKeptEntryId"]
  const firstKeptLine = compaction.record["firstKeptEntryIndex"]
  const kept: PiEntry[] = []
  let found = false
  for (const entry of path.slice(0, at)) {
    if (entry.id === null ? entry.line === firstKeptLine : entry.id === firstKept) found = true
    if (found && !isSystemMessage(entry)) kept.push(entry)
  }
  return [compaction, ...kept, ...path.slice(at + 1)]
}

function isSystemMessage(entry: PiEntry): boolean {
  if (entry.type !== "message") return false
  const message = entry.record["message"]
  return typeof message === "object" && message !== null && (message as { role?: unknown }).role === "system"
}

function contextEdit(replacement: unknown): PiContextEdit {
  if (replacement === null || typeof replacement !== "object") return { kind: "omit" }
  return { kind: "replace", content: (replacement as { content?: unknown }).content }
}
