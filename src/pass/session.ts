import type { SessionState } from "../session/session-state.js"
import type { Database } from "../store/driver.js"
import { ensureSession, loadSessionState, type SessionInfo } from "../store/session-repository.js"
import type { TokenCounter } from "../tokens/token-counter.js"
import { tagPrefix } from "../transcript/tag-format.js"
import type { HistoryPlanner } from "./history-planner.js"
import { recordPass } from "../store/pass-repository.js"
import { createOwedRecord, recordStored, type OwedRecord } from "./owed-record.js"
import { createOwedRows, rowsStored, storeOwedRows, writeOwedRows, type OwedRows } from "./owed-rows.js"
import { createPassCaches, type PassCaches } from "./pass-caches.js"
import { runPass, type PassOptions, type PassResult } from "./run-pass.js"

/** What a pass asks of the host besides the session: its messages, the request's counter and model, when it goes out. */
export type SessionPassInput = Omit<PassOptions, "db" | "state" | "caches" | "owed" | "owedRows" | "history">

/**
 * One session in memory: the mirror of its stored state, the caches its passes keep, the record a quiet pass still
 * owes the store, and its history planner when it has one. Forgetting the session drops all of it; the next use loads
 * the state from the store as it is.
 */
export type Session = {
  readonly id: string
  /** The stored-state mirror (`SessionState`), in step with the store after every pass. */
  readonly state: SessionState
  readonly caches: PassCaches
  /** The record the last quiet pass left to store (`owed-record.ts`; only with `defersRecords`). */
  readonly owed: OwedRecord
  /** The raw rows the last passes left to write (`owed-rows.ts`; only with `defersRecords`). */
  readonly owedRows: OwedRows
  /** The session's history planner (null: none yet, or the historian is off). */
  readonly planner: HistoryPlanner | null
  /** Gives the session its history planner (a host makes it on the session's first pass). */
  usePlanner(planner: HistoryPlanner): void
  /** One pass over the host's messages (`runPass`) with the session's state, caches and planner. */
  pass(input: SessionPassInput): PassResult
  /** Writes the raw rows passes left owed (before anything else of the session is written outside a pass). */
  storeRows(): void
  /**
   * Stores what the last pass left owed: its raw rows and the quiet pass's record (one transaction), then the compartments the planner cut, at most
   * `limit` episodes of them. Returns true while cut episodes are still owed.
   */
  settle(limit?: number): boolean
  /** Lets go of everything the session holds in memory; a forgotten session passes no more. */
  forget(): void
}

/**
 * Loads (or starts) the session in the store and makes its in-memory side. `defersRecords`: a pass leaves a call's new raw
 * rows owed and a quiet pass its record, for `settle` (the hosts'), else every pass writes its own. `planner`: the session's history planner
 * (none: no history is folded until one is given, `usePlanner`).
 */
export function createSession(options: {
  db: Database
  info: SessionInfo
  /** Counts the tag prefixes of the stored tags as the state is loaded. */
  counter: TokenCounter
  now: number
  defersRecords: boolean
  planner?: HistoryPlanner | null
}): Session {
  const { db, info, counter } = options
  ensureSession(db, info, options.now)
  const state = loadSessionState(db, info.id, (tag) => counter.count(tagPrefix(tag)))
  const caches = createPassCaches()
  const owed = createOwedRecord()
  const owedRows = createOwedRows()
  let planner = options.planner ?? null
  let forgotten = false
  // The owed rows, then the quiet pass's record that counted them, in one transaction.
  const storeOwed = (): void => {
    const record = owed.record
    if (forgotten || (owedRows.plans.length === 0 && record === null)) return
    const written = db.transaction(() => {
      const plans = writeOwedRows(db, owedRows)
      if (record !== null) recordPass(db, record)
      return plans
    })
    rowsStored(owedRows, written)
    if (record !== null) recordStored(owed, record)
  }
  return {
    id: info.id,
    state,
    caches,
    owed,
    owedRows,
    get planner() {
      return planner
    },
    usePlanner(given) {
      if (planner !== null && planner !== given) throw new Error(`session ${info.id} has a history planner already`)
      planner = given
    },
    pass(input) {
      if (forgotten) throw new Error(`session ${info.id} was forgotten: load it again to pass`)
      // Assigned, not spread into a literal: the spread of the host's options cost ~20 µs a call under Node.
      const passOptions = Object.assign({}, input) as PassOptions
      passOptions.db = db
      passOptions.state = state
      passOptions.caches = caches
      passOptions.history = planner
      if (options.defersRecords) {
        passOptions.owed = owed
        passOptions.owedRows = owedRows
      }
      return runPass(passOptions)
    },
    storeRows() {
      if (!forgotten) storeOwedRows(db, owedRows)
    },
    settle(limit) {
      storeOwed()
      return !forgotten && planner !== null && planner.settleCuts(limit)
    },
    forget() {
      forgotten = true
      owed.record = null
      owedRows.plans = []
    },
  }
}
