import type { PassRecord } from "../store/pass-repository.js"

/**
 * The pass record a quiet pass leaves to be stored once it has returned (`runPass`'s `owed`): a pass that changed
 * nothing but its own record (no drop, no new applied state, no reminder, no fold) need not hold its request up for a
 * transaction. At most one per session: a pass that finds one still owed writes it with its own commit. Held with the
 * session's state, so a session the runtime forgets (after a failed write) takes its owed record with it and a state
 * loaded afresh numbers its passes from the store as it is.
 */
export type OwedRecord = { record: PassRecord | null }

/** A session's owed record, none owed yet. */
export function createOwedRecord(): OwedRecord {
  return { record: null }
}

/** Leaves `record` to be stored after the pass (the session must owe none). */
export function oweRecord(owed: OwedRecord, record: PassRecord): void {
  if (owed.record !== null) throw new Error(`session ${record.sessionId} already owes the record of pass ${owed.record.seq}`)
  owed.record = record
}

/** Forgets the owed record once a transaction that wrote it has committed. */
export function recordStored(owed: OwedRecord, record: PassRecord): void {
  if (owed.record === record) owed.record = null
}
