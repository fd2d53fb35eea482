import type { Edit } from "../session/edit.js"
import type { LiveFacts, LiveItem } from "../session/live-facts.js"
import type { SessionState } from "../session/session-state.js"
import type { HostMessage } from "../transcript/host-message.js"

/** One message's share of the breakdown: tool-like and other tokens as rendered, and the prefix tokens among them. */
export type MessageSums = { tool: number; other: number; tags: number }

/**
 * What the measure and the renderer keep from one pass for the next, for one session. Each map is keyed by the
 * session's part records' map (a pass that plans new part records measures and renders afresh) or by a message's
 * facts (the same object while the message and its records are). Every entry is checked against what it was made from
 * before it is used: the results are the same with fresh caches.
 */
export type RenderCaches = {
  /**
   * The latest measure (`measurePrompt`): the facts it measured, for which tag visibility and reminders, and the running
   * sums of tool-like, other and prefix tokens before each live message.
   */
  runningSums: WeakMap<
    object,
    { facts: readonly LiveFacts[]; tagsVisible: boolean; nudgeKey: string; tool: readonly number[]; other: readonly number[]; tags: readonly number[] }
  >
  /**
   * What each list of reclaimable items measured to (their tokens as rendered), and for which tag visibility: items
   * are never changed once placed, so a replay that hands the same list measures it once.
   */
  reclaimableSums: WeakMap<readonly LiveItem[], { tagsVisible: boolean; tokens: number }>
  /** What each message's facts measured to, and for which tag visibility and reminders. */
  measuredFacts: WeakMap<LiveFacts, { tagsVisible: boolean; nudges: string; sums: MessageSums }>
  /**
   * The latest folded head of a render (`renderPromptPlaced`), for the pass after it: the pass, the history and live
   * position it was made for, the history message, the head's edits (the folded messages' removals and the history's
   * insertion), the live edits after it and the whole list.
   */
  foldedHeads: WeakMap<
    object,
    {
      generation: number
      history: NonNullable<SessionState["applied"]["history"]>
      liveFrom: number
      inserted: HostMessage | null
      edits: readonly Edit[]
      live: readonly Edit[]
      whole: readonly Edit[]
    }
  >
  /**
   * The latest render of the live messages from a view: the facts it rendered, for which tag visibility and reminders,
   * the edits in order, how many came before each message and where each edit lands (`PlacedEdits.targets`).
   */
  liveRuns: WeakMap<
    object,
    { facts: readonly LiveFacts[]; tagsVisible: boolean; reminders: string; edits: readonly Edit[]; before: readonly number[]; targets: Int32Array }
  >
}

/** Empty render caches, for one session's passes (or one call that keeps nothing for a next). */
export function createRenderCaches(): RenderCaches {
  return { runningSums: new WeakMap(), reclaimableSums: new WeakMap(), measuredFacts: new WeakMap(), foldedHeads: new WeakMap(), liveRuns: new WeakMap() }
}
