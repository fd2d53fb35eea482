import type { SessionState } from "../session/session-state.js"
import type { Database } from "../store/driver.js"
import { ensureSession, loadSessionState, type SessionInfo } from "../store/session-repository.js"
import type { TokenCounter } from "../tokens/token-counter.js"
import { tagPrefix } from "../transcript/tag-format.js"
import { createOwedRecord, type OwedRecord } from "./owed-record.js"
import { createPassCaches, type PassCaches } from "./pass-caches.js"

/**
 * Keeps each session's in-memory state, pass caches and owed record for the life of the process; loads the state from
 * the store on first use and makes the rest with it. Forgetting a session drops all three.
 */
export type SessionRegistry = {
  stateFor(session: SessionInfo, counter: TokenCounter): SessionState
  /** The caches of the session's passes (its state is loaded first when it is not held). */
  cachesFor(session: SessionInfo, counter: TokenCounter): PassCaches
  /** The record the session's last quiet pass left owed (its state is loaded first when it is not held). */
  owedFor(session: SessionInfo, counter: TokenCounter): OwedRecord
  /** The owed record of every session held. */
  owedRecords(): OwedRecord[]
  /** The state held for the session, without loading it. */
  held(sessionId: string): SessionState | undefined
  /** The owed record held for the session, without loading it. */
  heldOwed(sessionId: string): OwedRecord | undefined
  forget(sessionId: string): void
}

/** Creates a registry over one open store. */
export function createSessionRegistry(options: { db: Database; now: () => number }): SessionRegistry {
  const sessions = new Map<string, { state: SessionState; caches: PassCaches; owed: OwedRecord }>()
  const held = (session: SessionInfo, counter: TokenCounter): { state: SessionState; caches: PassCaches; owed: OwedRecord } => {
    const existing = sessions.get(session.id)
    if (existing) return existing
    ensureSession(options.db, session, options.now())
    const state = loadSessionState(options.db, session.id, (tag) => counter.count(tagPrefix(tag)))
    const loaded = { state, caches: createPassCaches(state.messageMemo), owed: createOwedRecord() }
    sessions.set(session.id, loaded)
    return loaded
  }
  return {
    stateFor: (session, counter) => held(session, counter).state,
    cachesFor: (session, counter) => held(session, counter).caches,
    owedFor: (session, counter) => held(session, counter).owed,
    owedRecords: () => [...sessions.values()].map(({ owed }) => owed),
    held: (sessionId) => sessions.get(sessionId)?.state,
    heldOwed: (sessionId) => sessions.get(sessionId)?.owed,
    forget(sessionId) {
      sessions.delete(sessionId)
    },
  }
}
