import type { Database } from "../driver.js"

/**
 * Sessions of the Pi host: `sessions.source` also takes 'pi'. SQLite cannot change a CHECK constraint in place, so
 * the table is rebuilt under the same name with the same columns and rows (the migration runs with foreign keys off,
 * so the rebuild cascades nothing; the child tables name `sessions` and find the new table).
 */
export function migrateTo0004(db: Database): void {
  db.exec(`
    CREATE TABLE sessions_0004 (
      id TEXT PRIMARY KEY,
      source TEXT NOT NULL CHECK (source IN ('opencode', 'pi', 'replay')),
      project_id TEXT,
      directory TEXT,
      title TEXT,
      next_tag INTEGER NOT NULL DEFAULT 1,
      next_seq INTEGER NOT NULL DEFAULT 1,
      created_at INTEGER NOT NULL,
      updated_at INTEGER NOT NULL
    ) STRICT;
    INSERT INTO sessions_0004 (id, source, project_id, directory, title, next_tag, next_seq, created_at, updated_at)
      SELECT id, source, project_id, directory, title, next_tag, next_seq, created_at, updated_at FROM sessions;
    DROP TABLE sessions;
    ALTER TABLE sessions_0004 RENAME TO sessions;
  `)
}
