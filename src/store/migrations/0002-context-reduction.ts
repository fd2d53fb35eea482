import type { Database } from "../driver.js"

/**
 * Context reduction: why a tag was dropped, the per-session applied state that only changes on execute
 * passes (epoch, execute boundary, emergency drain, usage calibration, nudge bookkeeping), the reminders placed in
 * the prompt (replayed byte-for-byte until the next execute pass), and the ctx_reduce calls (to cap repeats).
 */
export function migrateTo0002(db: Database): void {
  db.exec(`
    ALTER TABLE tags ADD COLUMN dropped_reason TEXT CHECK (dropped_reason IN ('reduce', 'reclaim', 'smart', 'superseded'));
    ALTER TABLE tags ADD COLUMN superseded_by INTEGER;

    CREATE TABLE session_state (
      session_id TEXT PRIMARY KEY REFERENCES sessions (id) ON DELETE CASCADE,
      epoch INTEGER NOT NULL DEFAULT 0,
      last_execute_pass INTEGER,
      boundary_seq INTEGER NOT NULL DEFAULT 0,
      drain_started_at INTEGER,
      calibration_tokens INTEGER NOT NULL DEFAULT 0,
      calibrated_message_id TEXT,
      last_nudge_pass INTEGER,
      last_nudge_level TEXT,
      last_reduce_pass INTEGER,
      history_json TEXT,
      updated_at INTEGER NOT NULL
    ) STRICT;

    CREATE TABLE placements (
      id INTEGER PRIMARY KEY,
      session_id TEXT NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
      epoch INTEGER NOT NULL,
      kind TEXT NOT NULL CHECK (kind IN ('nudge', 'steer')),
      anchor_id TEXT NOT NULL,
      level TEXT NOT NULL,
      text TEXT NOT NULL,
      placed_pass INTEGER NOT NULL
    ) STRICT;
    CREATE INDEX placements_by_epoch ON placements (session_id, epoch);

    CREATE TABLE reduce_calls (
      id INTEGER PRIMARY KEY,
      session_id TEXT NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
      turn_message_id TEXT,
      at INTEGER NOT NULL,
      drop_argument TEXT NOT NULL,
      queued INTEGER NOT NULL,
      deferred INTEGER NOT NULL,
      rejected INTEGER NOT NULL,
      refused_reason TEXT
    ) STRICT;
    CREATE INDEX reduce_calls_by_turn ON reduce_calls (session_id, turn_message_id);
  `)
}
