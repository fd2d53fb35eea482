import type { SessionState } from "../session/session-state.js"
import type { Database } from "../store/driver.js"
import { recordPass, type PassRecord } from "../store/pass-repository.js"

/**
 * The pass record a quiet pass leaves to be stored once it has returned (`runPass`'s `deferQuietRecord`): a pass that
 * changed nothing but its own record (no drop, no new applied state, no reminder, no fold) need not hold its request
 * up for a transaction. At most one per session: a pass that finds one still owed writes it with its own commit.
 * Kept by the state object, so a session the runtime forgets (after a failed write) takes its owed record with it and
 * a state loaded afresh numbers its passes from the store as it is.
 */
const owed = new WeakMap<SessionState, PassRecord>()

/** Leaves `record` to be stored after the pass (the session must owe none). */
export function oweRecord(state: SessionState, record: PassRecord): void {
  if (owed.has(state)) throw new Error(`session ${state.sessionId} already owes the record of pass ${owed.get(state)?.seq}`)
  owed.set(state, record)
}

/** The record the session owes, if any. */
export function owedRecord(state: SessionState): PassRecord | null {
  return owed.get(state) ?? null
}

/** Forgets the owed record once a transaction that wrote it has committed. */
export function recordStored(state: SessionState, record: PassRecord): void {
  if (owed.get(state) === record) owed.delete(state)
}

/** Stores the record the session owes, in a transaction of its own; a failed write leaves it owed. Returns whether one was stored. */
export function storeOwedRecord(db: Database, state: SessionState): boolean {
  const record = owed.get(state)
  if (record === undefined) return false
  db.transaction(() => recordPass(db, record))
  recordStored(state, record)
  return true
}
