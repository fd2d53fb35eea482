import type { AppliedState, Placement } from "../session/session-state.js"
import { cancelOperations, insertPlacement, markOperationsApplied, markTagsDropped, saveAppliedState } from "../store/applied-state-repository.js"
import type { Database } from "../store/driver.js"
import { recordPass, type PassRecord } from "../store/pass-repository.js"
import type { HistoryPlanner } from "./history-planner.js"
import type { ExecutionPlan } from "./plan-execution.js"

/**
 * Writes everything a pass decided, in one transaction: an execute pass's drops, landed and stale operations, the
 * applied state when it changed, the reminders placed, the pass record, and the history the planner folded in
 * (with the pass's id). Either all of it is stored or none; the caller brings memory in step only afterwards.
 * Returns the pass record's id.
 */
export function commitPass(options: {
  db: Database
  sessionId: string
  seq: number
  execution: ExecutionPlan | null
  /** The applied state to save, or null when the pass left it as it was. */
  applied: AppliedState | null
  placements: readonly Placement[]
  record: PassRecord
  /** The planner whose prepared history this pass folds in (null: no fold). */
  history: { planner: HistoryPlanner; pressure: number; firstDivergence: number | null; radius: number | null; now: number } | null
  now: number
}): void {
  const { db, sessionId, seq, execution, applied } = options
  db.transaction(() => {
    if (execution) {
      markTagsDropped(db, sessionId, execution.drops, seq)
      markOperationsApplied(db, execution.landed.map((drop) => drop.operationId), seq)
      cancelOperations(db, execution.stale.map((drop) => drop.operationId), "no longer in the context")
    }
    if (applied) {
      saveAppliedState(db, sessionId, applied, options.now)
      for (const placement of options.placements) insertPlacement(db, sessionId, applied.epoch, placement)
    }
    const passId = recordPass(db, options.record)
    if (options.history) {
      const { planner, ...input } = options.history
      planner.write({ pass: seq, passId, ...input })
    }
  })
}
