import type { DropReason } from "../session/session-state.js"
import type { LiveItem, LiveView } from "../session/live-view.js"
import { KEEP_NEWEST, keptNewest } from "./plan-reclaim.js"

export type SmartDrop = { tag: number; reason: Extract<DropReason, "smart" | "superseded">; supersededBy: number | null }

/** Results with no value once read. */
const ZERO_VALUE_TOOLS: ReadonlySet<string> = new Set(["bash_status", "bash_kill"])
const ZERO_VALUE_NOTE_ACTIONS: ReadonlySet<string> = new Set(["read", "dismiss"])

/**
 * Content-aware cleanup (`smart_drops`, seed: "Enable smart drops when useful"), for a pass that is already
 * rebuilding the cache. Honours the protected window and never touches unfinished tools:
 * - keeps only the newest results of the KEEP_NEWEST tools: one todowrite, three (spent) ctx_reduce;
 * - drops zero-value bash_status, bash_kill and ctx_note read/dismiss results;
 * - turns older calls of a file-writing tool (the host tool table's `writes`) that name the same one file into a
 *   marker with the path; the newest stays full. A call naming several files (a multi-file patch) takes no part:
 *   an edit of one of its files would lose what it did to the others.
 */
export function planSmartDrops(view: LiveView): SmartDrop[] {
  const eligible = view.items.filter((item) => item.tag.kind === "tool" && item.tag.status === "live" && item.final && !item.protected)
  const allTools = view.items.filter((item) => item.tag.kind === "tool")
  const drops: SmartDrop[] = []
  const kept = keptNewest(allTools)
  for (const item of eligible) {
    const spent = Object.hasOwn(KEEP_NEWEST, item.tag.tool ?? "") && !kept.has(item.tag.tag)
    if (spent) drops.push({ tag: item.tag.tag, reason: "smart", supersededBy: null })
  }
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

/** The one file a file-writing call names, or null: other tools, and calls naming no file or several. */
export function editedFile(item: LiveItem): string | null {
  return item.tag.tool === null ? null : (item.input?.editedFile ?? null)
}

function isZeroValueNote(item: LiveItem): boolean {
  const action = item.tag.tool === "ctx_note" ? item.input?.action : null
  return typeof action === "string" && ZERO_VALUE_NOTE_ACTIONS.has(action)
}
