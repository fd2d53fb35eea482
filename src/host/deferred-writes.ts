import { ingestMessages, unstoredTail } from "../pass/ingest-messages.js"
import type { SessionInfo } from "../store/session-repository.js"
import { withoutBusyWait } from "../store/busy-timeout.js"
import { newestUserInfo, type HostMessage } from "../transcript/host-message.js"
import type { HostRuntime } from "./host-runtime.js"
import { BUSY_RETRY_MAX_MS, OPEN_RETRY_FIRST_MS } from "./store-gate.js"

/**
 * Raw rows written outside a pass, and written later when the store could not take them. The host hands every pass
 * the session's whole message list and ingest is idempotent, so what is pending is simply the newest list a failed
 * write saw: writing it later stores whatever of it the store lacks. These writes (and the opens they make) never wait
 * for a lock (SQLite waits synchronously, inside OpenCode's process); a busy store keeps them pending, and a timer
 * retries once the store's backoff has passed (so a session whose turn ended while the store was locked is still
 * stored without another pass).
 */
export type DeferredWrites = {
  /** Stores messages outside a pass (a turn's final reply); on a store failure they wait, and it rethrows. */
  write(sessionId: string, messages: readonly HostMessage[]): Promise<void>
  /** Keeps the newest messages of a session whose pass could not store them, and schedules a retry. */
  defer(sessionId: string, messages: readonly HostMessage[]): void
  /**
   * Writes whatever waits: raw rows (rejecting with the store's failure when they cannot be written; they stay
   * pending), then queued errors. Call before a pass, so rows seen earlier are stored before the pass's own.
   */
  flush(): Promise<void>
  /** Schedules a retry of what waits (raw rows and queued errors), once the store's backoff has passed. */
  retryLater(): void
  /** Sessions whose messages wait to be written. */
  waiting(): number
  /** True when messages of this session wait to be written. */
  waitingFor(sessionId: string): boolean
  /** Stops retrying (the instance is disposed); what still waits stays in OpenCode's own storage. */
  close(): void
}

/** Creates the deferred writes for one runtime; `sessionInfo` names the session row a write creates. */
export function createDeferredWrites(options: {
  runtime: HostRuntime
  sessionInfo: (sessionId: string) => SessionInfo
}): DeferredWrites {
  const { runtime } = options
  const pending = new Map<string, readonly HostMessage[]>()
  let retryScheduled = false
  // Consecutive retries that left something unwritten: the next one waits longer (1 s doubling to 5 s) even when the
  // gate has no backoff (a store that refuses a row without being busy would otherwise be retried in a loop).
  let fruitless = 0
  let closed = false

  const store = async (sessionId: string, messages: readonly HostMessage[]): Promise<void> => {
    const db = await runtime.database({ wait: false })
    const registry = await runtime.sessions()
    const counter = runtime.counterFor(newestUserInfo(messages)?.model ?? null)
    withoutBusyWait(db, () => {
      const state = registry.stateFor(options.sessionInfo(sessionId), counter)
      ingestMessages({ db, state, messages: unstoredTail(state, messages), counter, now: runtime.now(), pass: null })
    })
    // A newer list may have been deferred meanwhile; it stays pending.
    if (pending.get(sessionId) === messages) pending.delete(sessionId)
  }

  const retryLater = (): void => {
    if (retryScheduled || closed) return
    retryScheduled = true
    const backoff = (runtime.storeFailure()?.retryAt ?? 0) - runtime.now()
    const floor = Math.min(BUSY_RETRY_MAX_MS, OPEN_RETRY_FIRST_MS * 2 ** fruitless)
    runtime.schedule(() => {
      retryScheduled = false
      fruitless += 1
      void flush().catch(() => undefined)
    }, Math.max(backoff, floor))
  }

  const flush = async (): Promise<void> => {
    if (pending.size === 0 && runtime.errors.unsaved().length === 0) {
      fruitless = 0
      return
    }
    try {
      const rows = [...pending]
      for (const [sessionId, messages] of rows) await store(sessionId, messages)
      // Attaches the error log when the store opens only now.
      await runtime.database({ wait: false })
      if (rows.length > 0) runtime.storeWorked()
    } catch (error) {
      runtime.storeFailed(error)
      retryLater()
      throw error
    }
    if (!runtime.errors.flush()) return retryLater()
    fruitless = 0
  }

  return {
    async write(sessionId, messages) {
      pending.set(sessionId, messages)
      await flush()
    },
    defer(sessionId, messages) {
      pending.set(sessionId, messages)
      retryLater()
    },
    flush,
    retryLater,
    waiting: () => pending.size,
    waitingFor: (sessionId) => pending.has(sessionId),
    close() {
      closed = true
    },
  }
}
