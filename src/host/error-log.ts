import { randomUUID } from "node:crypto"
import { isPluginError } from "../plugin-error.js"
import type { Database } from "../store/driver.js"
import { recordError, type ErrorRecord } from "../store/error-repository.js"
import { withoutBusyWait } from "../store/busy-timeout.js"

const MEMORY_LIMIT = 50

/**
 * Where internal errors go: an in-memory ring (at once, so `/ctx-status` can show them even without a store), the
 * host's log, and the store's `errors` table (so `magic-context status` shows them later). The store write never
 * waits for a lock: an error that cannot be written now stays queued and `flush` writes it once the store is free.
 * Every error carries the log's host instance and project directory, so one recorded without a session is shown only
 * where it belongs (that instance's `/ctx-status`, `magic-context status` of that directory). Recording never throws.
 */
export type ErrorLog = {
  /** The host instance this log records for (one plugin runtime in one process). */
  readonly instanceId: string
  record(options: { hook: string; sessionId: string | null; error: unknown }): void
  /** The newest errors, newest first. */
  recent(): readonly ErrorRecord[]
  /** Errors not yet in the store, oldest first. */
  unsaved(): readonly ErrorRecord[]
  /** Gives the log its store; queued errors are written now if the store is free. */
  attach(db: Database): void
  /** Writes queued errors without waiting for a lock; true when none is left unwritten. */
  flush(): boolean
}

/** Creates an error log; `hostLog` forwards one line to OpenCode's log and must not throw synchronously. */
export function createErrorLog(options: {
  now: () => number
  hostLog: (message: string) => void
  /** The host instance the log records for (default: a new id, the process id and a random UUID). */
  instanceId?: string
  /** The project directory of the instance (default null: the host gave none). */
  directory?: string | null
}): ErrorLog {
  const instanceId = options.instanceId ?? `${process.pid}:${randomUUID()}`
  const memory: ErrorRecord[] = []
  const unsaved: ErrorRecord[] = []
  let db: Database | null = null

  const flush = (): boolean => {
    if (unsaved.length === 0) return true
    const connection = db
    if (!connection) return false
    try {
      withoutBusyWait(connection, () =>
        connection.transaction(() => unsaved.forEach((entry) => recordError(connection, entry))),
      )
      unsaved.splice(0)
      return true
    } catch {
      // Busy or broken: the entries stay queued (and in the ring) for the next flush.
      return false
    }
  }

  return {
    instanceId,
    record({ hook, sessionId, error }) {
      const entry: ErrorRecord = {
        sessionId,
        at: options.now(),
        hook,
        code: isPluginError(error) ? error.code : null,
        message: error instanceof Error ? error.message : String(error),
        stack: error instanceof Error ? (error.stack ?? null) : null,
        instanceId,
        directory: options.directory ?? null,
      }
      memory.unshift(entry)
      if (memory.length > MEMORY_LIMIT) memory.pop()
      unsaved.push(entry)
      if (unsaved.length > MEMORY_LIMIT) unsaved.shift()
      flush()
      try {
        options.hostLog(`${hook} failed open: ${entry.message}`)
      } catch {
        // Nothing else to tell.
      }
    },
    recent: () => memory,
    unsaved: () => unsaved,
    attach(connection) {
      db = connection
      flush()
    },
    flush,
  }
}
