import type { SessionState } from "../src/session/session-state.js"

/**
 * The oldest tool output still live and not queued: what a bench round asks to drop, so that every round has a
 * drop due (reclaim may have taken the ones an earlier list named).
 */
export function nextDropTarget(state: SessionState): number | null {
  for (const tag of state.tagsByNumber.values()) {
    if (tag.kind === "tool" && tag.status === "live" && !state.queued.has(tag.tag)) return tag.tag
  }
  return null
}
