import type { Database } from "../driver.js"

/**
 * Pins the agent asks for (ctx_pin): the raw content of a tag, rendered verbatim in the pinned ledger once its
 * message has been folded into history. Pins from the user's config patterns and the kinds pinned by default live
 * with their compartment's facts (items.pinned_by).
 */
export function migrateTo0003(db: Database): void {
  db.exec(`
    CREATE TABLE pins (
      session_id TEXT NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
      tag INTEGER NOT NULL,
      text TEXT NOT NULL,
      pinned_by TEXT NOT NULL CHECK (pinned_by IN ('agent', 'user')),
      created_at INTEGER NOT NULL,
      PRIMARY KEY (session_id, tag)
    ) STRICT;
  `)
}
