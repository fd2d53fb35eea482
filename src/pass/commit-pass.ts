import type { AppliedState, Placement, SessionState } from "../session/session-state.js"
import { cancelOperations, insertPlacement, markOperationsApplied, markReasoningWithheld, markTagsDropped, saveAppliedState } from "../store/applied-state-repository.js"
import type { Database } from "../store/driver.js"
import { recordPass, type PassRecord } from "../store/pass-repository.js"
import type { HistoryPlanner } from "./history-planner.js"
import { oweRecord, recordStored, type OwedRecord } from "./owed-record.js"
import { rowsStored, writeOwedRows, type OwedPlan, type OwedRows } from "./owed-rows.js"
import type { ExecutionPlan } from "./plan-execution.js"

/** What one pass writes when it commits. */
export type PassCommit = {
  db: Database
  sessionId: string
  seq: number
  execution: ExecutionPlan | null
  /** The applied state to save, or null when the pass left it as it was. */
  applied: AppliedState | null
  placements: readonly Placement[]
  /** Reasoning parts an execute pass took out of the prompt (`withhold-reasoning.ts`). */
  withheld?: readonly string[]
  record: PassRecord
  /** A quiet pass's record not stored yet (`owed-record.ts`): written first, so the passes stay in order. */
  owed: PassRecord | null
  /** Raw rows not written yet (`owed-rows.ts`): written first of all, so nothing is reduced before its rows are stored. */
  rows?: OwedRows | null
  /** The planner whose prepared history this pass folds in (null: no fold). */
  history: { planner: HistoryPlanner; pressure: number; firstDivergence: number | null; radius: number | null; now: number } | null
  now: number
}

/**
 * Writes everything a pass decided, in one transaction: an execute pass's drops, landed and stale operations, the
 * reasoning parts it withheld, the applied state when it changed, the reminders placed, the pass record, and the history the planner folded in
 * (with the pass's id), after the record an earlier quiet pass still owes (`owed`). Either all of it is stored or
 * none; the caller brings memory in step only afterwards.
 */
export function commitPass(options: PassCommit): void {
  const { db, sessionId, seq, execution, applied } = options
  let written: readonly OwedPlan[] = []
  db.transaction(() => {
    if (options.rows) written = writeOwedRows(db, options.rows)
    if (options.owed) recordPass(db, options.owed)
    if (execution) {
      markTagsDropped(db, sessionId, execution.drops, seq)
      markOperationsApplied(db, execution.landed.map((drop) => drop.operationId), seq)
      cancelOperations(db, execution.stale.map((drop) => drop.operationId), "no longer in the context")
    }
    if (options.withheld && options.withheld.length > 0) markReasoningWithheld(db, sessionId, options.withheld, seq)
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
  if (options.rows) rowsStored(options.rows, written)
}

/**
 * Commits what the pass decided (`commitPass`) with the record the session still owes, or, for a quiet pass of a
 * shell (`owed` given: no drop, no new applied state, no reminder, no fold, no withheld reasoning, none owed),
 * leaves its record owed (`owed-record.ts`) and writes nothing (its raw rows, owed since ingest, stay owed with it).
 */
export function commitOrOwe(options: Omit<PassCommit, "owed" | "sessionId"> & { state: SessionState; owed: OwedRecord | null }): void {
  const { state, owed: holder, ...commit } = options
  const owed = holder?.record ?? null
  const quiet = commit.execution === null && commit.applied === null && commit.placements.length === 0 && commit.history === null
  if (holder && owed === null && quiet && (commit.withheld ?? []).length === 0) {
    oweRecord(holder, commit.record)
    return
  }
  commitPass({ ...commit, sessionId: state.sessionId, owed })
  if (holder && owed) recordStored(holder, owed)
}
