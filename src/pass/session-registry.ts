import type { SessionState } from "../session/session-state.js"
import type { Database } from "../store/driver.js"
import type { SessionInfo } from "../store/session-repository.js"
import type { TokenCounter } from "../tokens/token-counter.js"
import { createSession, type Session } from "./session.js"

/**
 * Keeps each session (`Session`: its state, pass caches and owed record) for the life of the process; loads it from the
 * store on first use. Forgetting a session drops the one object.
 */
export type SessionRegistry = {
  /** The session, loaded first when it is not held. */
  sessionFor(session: SessionInfo, counter: TokenCounter): Session
  /**
   * The session's state (`sessionFor(…).state`), for a write outside a pass: the raw rows its passes still owe are
   * written first, so the rows stay in order and what the write refers to is stored.
   */
  stateFor(session: SessionInfo, counter: TokenCounter): SessionState
  /** The session held, without loading it. */
  held(sessionId: string): Session | undefined
  /** Every session held. */
  sessions(): IterableIterator<Session>
  /** How many sessions are held. */
  count(): number
  forget(sessionId: string): void
}

/** Creates a registry over one open store; its sessions leave a quiet pass's record owed when `defersRecords`. */
export function createSessionRegistry(options: { db: Database; now: () => number; defersRecords?: boolean }): SessionRegistry {
  const sessions = new Map<string, Session>()
  const sessionFor = (info: SessionInfo, counter: TokenCounter): Session => {
    const existing = sessions.get(info.id)
    if (existing) return existing
    const session = createSession({ db: options.db, info, counter, now: options.now(), defersRecords: options.defersRecords ?? false })
    sessions.set(info.id, session)
    return session
  }
  return {
    sessionFor,
    stateFor(info, counter) {
      const session = sessionFor(info, counter)
      session.storeRows()
      return session.state
    },
    held: (sessionId) => sessions.get(sessionId),
    sessions: () => sessions.values(),
    count: () => sessions.size,
    forget(sessionId) {
      sessions.get(sessionId)?.forget()
      sessions.delete(sessionId)
    },
  }
}
