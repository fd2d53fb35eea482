import type { IngestPlan } from "../session/plan-ingest.js"
import type { Database } from "../store/driver.js"
import { writeIngestPlan } from "../store/ingest-repository.js"

/** One pass's new raw rows, planned and in the session's state, not written yet. */
export type OwedPlan = { plan: IngestPlan; now: number; pass: number | null }

/**
 * The raw rows a pass that reduces nothing leaves to be written once it has returned (`runPass`'s `owedRows`; the
 * shells'). The session's state holds them as stored, so the tags the pass showed are the ones the rows record. They
 * are written, oldest first, before anything else of the session is: the next pass's ingest, a commit that reduces
 * (in its transaction, first), a cut's compartments, a write outside a pass (`SessionRegistry.stateFor`), and the
 * settle a turn of the loop after the pass. A write that fails leaves them owed; a session the runtime forgets drops
 * them, and its next pass stores them again from the host's copy, to the same tags (a plan numbers what the store
 * lacks in the order of the host's list).
 */
export type OwedRows = { plans: OwedPlan[] }

/** A session's owed rows, none owed yet. */
export function createOwedRows(): OwedRows {
  return { plans: [] }
}

/** Leaves `plan` to be written after the pass; its parts must hold their JSON (`keptWhole`). */
export function oweRows(owed: OwedRows, plan: OwedPlan): void {
  owed.plans.push(plan)
}

/** Writes the owed plans in the caller's transaction; `rowsStored` once it committed. Returns what it wrote. */
export function writeOwedRows(db: Database, owed: OwedRows): readonly OwedPlan[] {
  const plans = owed.plans
  for (const { plan, now, pass } of plans) writeIngestPlan(db, plan, now, pass)
  return plans
}

/** Forgets the plans a committed transaction wrote (plans owed since stay owed). */
export function rowsStored(owed: OwedRows, written: readonly OwedPlan[]): void {
  if (written.length === 0) return
  owed.plans = owed.plans.filter((plan) => !written.includes(plan))
}

/** Writes the owed rows in a transaction of their own; a failed write leaves them owed. Returns whether any were written. */
export function storeOwedRows(db: Database, owed: OwedRows): boolean {
  if (owed.plans.length === 0) return false
  const written = db.transaction(() => writeOwedRows(db, owed))
  rowsStored(owed, written)
  return true
}
