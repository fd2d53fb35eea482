import type { DropReason } from "../pass/session-state.js"
import type { LiveItem, LiveView } from "./live-view.js"

export type SmartDrop = { tag: number; reason: Extract<DropReason, "smart" | "superseded">; supersededBy: number | null }

/** Results with no value once read. */
const ZERO_VALUE_TOOLS = new Set(["bash_status", "bash_kill"])
const ZERO_VALUE_NOTE_ACTIONS = new Set(["read", "dismiss"])
/** Tools that rewrite a file; only the newest edit of each file stays full. */
const FILE_WRITERS = new Set(["edit", "write", "multiedit"])

/**
 * Content-aware cleanup (`smart_drops`, seed: "Enable smart drops when useful"), for a pass that is already
 * rebuilding the cache. Honours the protected window and never touches unfinished tools:
 * - keeps only the newest todowrite result and the newest three (spent) ctx_reduce results;
 * - drops zero-value bash_status, bash_kill and ctx_note read/dismiss results;
 * - turns older edits or writes of the same file into a marker with the path; the newest edit stays full.
 */
export function planSmartDrops(view: LiveView): SmartDrop[] {
  const eligible = view.items.filter((item) => item.tag.kind === "tool" && item.tag.status === "live" && item.final && !item.protected)
  const allTools = view.items.filter((item) => item.tag.kind === "tool")
  const drops: SmartDrop[] = []
  const keepNewest = (tool: string, count: number): void => {
    const newest = new Set(
      allTools
        .filter((item) => item.tag.tool === tool)
        .slice(-count)
        .map((item) => item.tag.tag),
    )
    for (const item of eligible) {
      if (item.tag.tool === tool && !newest.has(item.tag.tag)) drops.push({ tag: item.tag.tag, reason: "smart", supersededBy: null })
    }
  }
  keepNewest("todowrite", 1)
  keepNewest("ctx_reduce", 3)
  for (const item of eligible) {
    if (ZERO_VALUE_TOOLS.has(item.tag.tool ?? "") || isZeroValueNote(item)) {
      drops.push({ tag: item.tag.tag, reason: "smart", supersededBy: null })
    }
  }
  // The newest edit that has finished and is still shown supersedes the older ones.
  const newestEditByFile = new Map<string, number>()
  for (const item of allTools) {
    const file = editedFile(item)
    if (file !== null && item.final && item.tag.status === "live") newestEditByFile.set(file, item.tag.tag)
  }
  for (const item of eligible) {
    const file = editedFile(item)
    if (file === null) continue
    const newest = newestEditByFile.get(file)
    if (newest !== undefined && newest > item.tag.tag) drops.push({ tag: item.tag.tag, reason: "superseded", supersededBy: newest })
  }
  const seen = new Set<number>()
  return drops.filter((drop) => !seen.has(drop.tag) && seen.add(drop.tag)).sort((a, b) => a.tag - b.tag)
}

/** The file an edit or write targets, or null for other tools. */
export function editedFile(item: LiveItem): string | null {
  if (!FILE_WRITERS.has(item.tag.tool ?? "") || item.toolInput === null) return null
  const input = item.toolInput
  const file = input["filePath"] ?? input["file_path"] ?? input["path"]
  return typeof file === "string" && file.length > 0 ? file : null
}

function isZeroValueNote(item: LiveItem): boolean {
  if (item.tag.tool !== "ctx_note" || item.toolInput === null) return false
  const action = item.toolInput["action"]
  return typeof action === "string" && ZERO_VALUE_NOTE_ACTIONS.has(action)
}
