import type { Database } from "./driver.js"
import { statement } from "./statements.js"

/**
 * Runs `fn` with the connection's busy timeout at 0, so a statement that meets another process's lock fails at once
 * instead of waiting, then restores the timeout. For writes that can be retried later (the error queue, deferred raw
 * rows): SQLite waits synchronously, so a wait there would hold up OpenCode.
 */
export function withoutBusyWait<T>(db: Database, fn: () => T): T {
  // Prepared once per connection: under Bun the driver keeps every statement it prepared until the connection closes.
  const row = statement(db, "PRAGMA busy_timeout").get()
  const previous = Number(row === undefined ? 0 : Object.values(row)[0])
  setBusyTimeout(db, 0)
  try {
    return fn()
  } finally {
    setBusyTimeout(db, Number.isFinite(previous) ? previous : 0)
  }
}

/** Sets how long the connection's statements wait for another process's lock (ms) before failing with SQLITE_BUSY. */
export function setBusyTimeout(db: Database, ms: number): void {
  db.exec(`PRAGMA busy_timeout = ${Math.max(0, Math.trunc(ms))}`)
}
