import type { ReclaimMode } from "../reduce/plan-reclaim.js"
import { planReclaim } from "../reduce/plan-reclaim.js"
import type { SmartDrop } from "../reduce/plan-smart-drops.js"
import type { LiveView } from "../session/live-view.js"
import { RecordMap, recordsByMessage } from "../session/record-map.js"
import type { AppliedState, DrainState, DropReason, QueuedDrop, ReadyHistory, SessionState, TagRecord } from "../session/session-state.js"

export type PlannedDrop = { tag: number; reason: DropReason; supersededBy: number | null }

/** What an execute pass applies, as values: nothing is written or changed until the pass commits it. */
export type ExecutionPlan = {
  /** Every tag whose content leaves the prompt, once, with why. */
  drops: PlannedDrop[]
  /** The queued ctx_reduce drops that land. */
  landed: QueuedDrop[]
  /** Queued drops whose material left the context (folded, or summarized by the host): they can never land. */
  stale: QueuedDrop[]
  /** The new epoch's applied state (its reminders are placed afterwards). */
  applied: AppliedState
  /** The tag records the drops change, as new records (the session's own are never changed in place). */
  tags: TagRecord[]
}

/**
 * Plans an execute pass: the queued drops that may land (when the decision applies them), the reclaim its mode
 * takes, the smart drops, each tag once and in that order of precedence; and the new epoch: boundary at the newest
 * message, the drain as decided, the history when a fold is ready, no reminders yet.
 */
export function planExecution(options: {
  state: SessionState
  view: LiveView
  seq: number
  applyQueued: boolean
  reclaim: ReclaimMode | null
  landable: readonly QueuedDrop[]
  smart: readonly SmartDrop[]
  drain: DrainState
  ready: ReadyHistory | null
}): ExecutionPlan {
  const { state, view, seq, applyQueued, landable, smart, ready } = options
  const drops = new Map<number, PlannedDrop>()
  if (applyQueued) for (const drop of landable) drops.set(drop.tag, { tag: drop.tag, reason: "reduce", supersededBy: null })
  if (options.reclaim) {
    for (const tag of planReclaim({ view, mode: options.reclaim, boundarySeq: state.applied.boundarySeq })) {
      if (!drops.has(tag)) drops.set(tag, { tag, reason: "reclaim", supersededBy: null })
    }
  }
  if (applyQueued) for (const drop of smart) if (!drops.has(drop.tag)) drops.set(drop.tag, drop)
  const tags = [...drops.values()].flatMap((drop) => {
    const tag = state.tagsByNumber.get(drop.tag)
    return tag ? [{ ...tag, status: "dropped" as const, droppedReason: drop.reason, supersededBy: drop.supersededBy }] : []
  })
  return {
    drops: [...drops.values()],
    landed: applyQueued ? [...landable] : [],
    stale: [...state.queued.values()].filter((drop) => !view.byTag.has(drop.tag)),
    applied: {
      ...state.applied,
      epoch: state.applied.epoch + 1,
      lastExecutePass: seq,
      boundarySeq: view.newestSeq,
      drain: options.drain,
      history: ready ? { foldedThroughSeq: ready.foldThroughSeq, text: ready.text, tokens: ready.tokens, foldedAtPass: seq } : state.applied.history,
      placements: [],
    },
    tags,
  }
}

/**
 * The session as it stands once the plan is applied, for the rest of the pass to render and measure: the new
 * applied state, the changed tag records and the queue without the drops that landed or went stale. The session's
 * own maps are copied, never changed: `adoptExecution` makes the plan the session's state after the commit.
 */
export function plannedState(state: SessionState, plan: ExecutionPlan): SessionState {
  // A copy that goes on from the session's record log: the planned view rechecks only the messages whose tags changed.
  const tagsByPart = state.tagsByPart instanceof RecordMap ? RecordMap.derive(state.tagsByPart) : recordsByMessage(state.tagsByPart)
  const tagsByNumber = new Map(state.tagsByNumber)
  for (const tag of plan.tags) {
    tagsByPart.set(tag.partId, tag)
    tagsByNumber.set(tag.tag, tag)
  }
  const queued = new Map(state.queued)
  for (const drop of plan.stale) queued.delete(drop.tag)
  for (const drop of plan.landed) queued.delete(drop.tag)
  return { ...state, applied: plan.applied, tagsByPart, tagsByNumber, queued }
}
