import type { Database } from "../store/driver.js"
import { writeIngestPlan } from "../store/ingest-repository.js"
import type { TokenCounter } from "../tokens/token-counter.js"
import type { HostMessage } from "../transcript/host-message.js"
import { applyPlanToState, isEmptyPlan, keptWhole, planIngest, type IngestPlan } from "../session/plan-ingest.js"
import { oweRows, storeOwedRows, type OwedRows } from "./owed-rows.js"
import type { MessageMemo } from "../session/message-memo.js"
import type { SessionState } from "../session/session-state.js"

/**
 * Stores what of `messages` is new, pristine, in one transaction, and only then brings the session's in-memory state
 * in step (a failed write, such as a busy store, leaves the state as it was). `pass` is the pass storing them, or null
 * for a write outside a pass (the final reply at the end of a turn, rows written later).
 */
export function ingestMessages(options: {
  db: Database
  state: SessionState
  messages: readonly HostMessage[]
  counter: TokenCounter
  now: number
  pass: number | null
  /** The pass's memo, once `beginPass` ran for `messages` (messages it knows stored whole are skipped). */
  memo?: MessageMemo
  /**
   * The session's owed rows (the shells' passes): rows owed by an earlier pass are written first, and a plan that kept
   * its parts' JSON is left owed (`owed-rows.ts`), in the state at once; the pass writes it if it reduces, else the
   * settle after it does.
   */
  owe?: OwedRows
}): IngestPlan {
  const { db, state, owe } = options
  if (owe) storeOwedRows(db, owe)
  const plan = planIngest({ state, messages: options.messages as HostMessage[], counter: options.counter, ...(options.memo ? { memo: options.memo } : {}) })
  if (isEmptyPlan(plan)) return plan
  if (owe && keptWhole(plan)) {
    oweRows(owe, { plan, now: options.now, pass: options.pass })
  } else {
    db.transaction(() => writeIngestPlan(db, plan, options.now, options.pass))
  }
  applyPlanToState(state, plan)
  return plan
}

/**
 * The messages a write outside a pass stores: from the newest one the store already has (included, since a part of it
 * may have become final) to the end, or all of them when it has none. OpenCode's own message list starts before its
 * last compaction while a pass sees only what follows it, so a message before the ones stored is never appended after
 * them out of order.
 */
export function unstoredTail(state: SessionState, messages: readonly HostMessage[]): readonly HostMessage[] {
  for (let index = messages.length - 1; index >= 0; index -= 1) {
    const message = messages[index]
    if (message && state.messageSeq.has(message.info.id)) return messages.slice(index)
  }
  return messages
}
