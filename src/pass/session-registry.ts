import type { SessionState } from "../session/session-state.js"
import type { Database } from "../store/driver.js"
import { ensureSession, loadSessionState, type SessionInfo } from "../store/session-repository.js"
import type { TokenCounter } from "../tokens/token-counter.js"
import { tagPrefix } from "../transcript/tag-format.js"

/** Keeps each session's in-memory state for the life of the process; loads it from the store on first use. */
export type SessionRegistry = {
  stateFor(session: SessionInfo, counter: TokenCounter): SessionState
  /** The state held for the session, without loading it. */
  held(sessionId: string): SessionState | undefined
  /** Every state held. */
  states(): IterableIterator<SessionState>
  forget(sessionId: string): void
}

/** Creates a registry over one open store. */
export function createSessionRegistry(options: { db: Database; now: () => number }): SessionRegistry {
  const states = new Map<string, SessionState>()
  return {
    stateFor(session, counter) {
      const existing = states.get(session.id)
      if (existing) return existing
      ensureSession(options.db, session, options.now())
      const loaded = loadSessionState(options.db, session.id, (tag) => counter.count(tagPrefix(tag)))
      states.set(session.id, loaded)
      return loaded
    },
    held: (sessionId) => states.get(sessionId),
    states: () => states.values(),
    forget(sessionId) {
      states.delete(sessionId)
    },
  }
}
