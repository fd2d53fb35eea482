import { isPluginError } from "../plugin-error.js"
import type { Database } from "../store/driver.js"
import { recordError, type ErrorRecord } from "../store/error-repository.js"

const MEMORY_LIMIT = 50

/**
 * Where internal errors go: the store (so `/ctx-status` and `magic-context status` show them), an in-memory ring
 * (for when the store itself is what failed), and the host's log. Recording never throws.
 */
export type ErrorLog = {
  record(options: { hook: string; sessionId: string | null; error: unknown }): void
  recent(): readonly ErrorRecord[]
  attach(db: Database): void
}

/** Creates an error log; `hostLog` forwards one line to OpenCode's log and must not throw synchronously. */
export function createErrorLog(options: { now: () => number; hostLog: (message: string) => void }): ErrorLog {
  const memory: ErrorRecord[] = []
  const unsaved: ErrorRecord[] = []
  let db: Database | null = null
  return {
    record({ hook, sessionId, error }) {
      const entry: ErrorRecord = {
        sessionId,
        at: options.now(),
        hook,
        code: isPluginError(error) ? error.code : null,
        message: error instanceof Error ? error.message : String(error),
        stack: error instanceof Error ? (error.stack ?? null) : null,
      }
      memory.unshift(entry)
      if (memory.length > MEMORY_LIMIT) memory.pop()
      if (!db) {
        unsaved.push(entry)
        if (unsaved.length > MEMORY_LIMIT) unsaved.shift()
      }
      try {
        if (db) recordError(db, entry)
      } catch {
        // The store is the part that failed; the in-memory ring and the host log still have the error.
      }
      try {
        options.hostLog(`${hook} failed open: ${entry.message}`)
      } catch {
        // Nothing else to tell.
      }
    },
    recent: () => memory,
    attach(connection) {
      db = connection
      // Errors from before the store opened (a hook that failed first) are written now, oldest first.
      try {
        for (const entry of unsaved.splice(0)) recordError(connection, entry)
      } catch {
        // The store cannot take them; they stay in the in-memory ring.
      }
    },
  }
}
