import type { SessionState } from "../session/session-state.js"
import type { LiveView } from "../session/live-view.js"

export type DropItem = { tag: number; tokens: number; label: string }

/** What becomes of each tag a ctx_reduce call names. */
export type DropClassification = {
  /** Will land on the next execute pass. */
  queued: DropItem[]
  /** Inside the protected recent window: queued, lands once the window has moved past it. */
  deferred: DropItem[]
  rejected: { tag: number; reason: string }[]
}

/**
 * Validates the tags of a ctx_reduce call against the session: each must exist in this session, be in the current
 * context, not be dropped or queued already, not be the user's own words, and be finished. Protected tags are
 * deferred rather than refused. Pure: looks only at the stored state and the live view of the last pass.
 */
export function classifyDropRequest(options: { tags: readonly number[]; state: SessionState; view: Pick<LiveView, "byTag"> }): DropClassification {
  const { tags, state, view } = options
  const result: DropClassification = { queued: [], deferred: [], rejected: [] }
  const highest = state.nextTag - 1
  for (const tag of tags) {
    const record = state.tagsByNumber.get(tag)
    if (!record) {
      const range = highest > 0 ? `tags in this session run from 1 to ${highest}` : "this session has no tags yet"
      result.rejected.push({ tag, reason: `no such tag in this session (${range})` })
      continue
    }
    if (record.status === "dropped") {
      result.rejected.push({ tag, reason: "already dropped" })
      continue
    }
    if (state.queued.has(tag)) {
      result.rejected.push({ tag, reason: "already queued" })
      continue
    }
    const item = view.byTag.get(tag)
    if (!item) {
      result.rejected.push({ tag, reason: "not in the current context any more (OpenCode's compaction summarized it)" })
      continue
    }
    if (item.role === "user" && record.kind === "message") {
      result.rejected.push({ tag, reason: "the user's own message: user messages are never dropped" })
      continue
    }
    if (!item.final) {
      result.rejected.push({ tag, reason: "its tool call is still waiting for its result" })
      continue
    }
    const entry = { tag, tokens: item.contentTokens, label: record.tool ? `${record.tool} output` : record.kind }
    if (item.protected) result.deferred.push(entry)
    else result.queued.push(entry)
  }
  return result
}
