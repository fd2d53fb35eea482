import { openNodeDatabase } from "../../src/store/driver-node.js"
import type { Database } from "../../src/store/driver.js"
import { migrate } from "../../src/store/migrate.js"
import { openDatabase } from "../../src/store/open-database.js"
import { ensureSession, type SessionInfo } from "../../src/store/session-repository.js"

/** A raw `:memory:` connection migrated up to `version` and no further (Signal's `updateToVersion`). */
export function databaseAtVersion(version: number): Database {
  const db = openNodeDatabase(":memory:")
  migrate(db, { file: ":memory:", upTo: version })
  return db
}

/** A fully migrated in-memory store, opened the way the plugin opens it. */
export function openMemoryStore(): Promise<Database> {
  return openDatabase(":memory:")
}

/** A session row for tests. */
export function replaySession(id: string, overrides: Partial<SessionInfo> = {}): SessionInfo {
  return { id, source: "replay", projectId: null, directory: null, title: null, ...overrides }
}

/** Opens a migrated in-memory store holding one session. */
export async function storeWithSession(sessionId: string, now = 1_000): Promise<Database> {
  const db = await openMemoryStore()
  ensureSession(db, replaySession(sessionId), now)
  return db
}

/** Every user table of the store, sorted. */
export function tableNames(db: Database): string[] {
  return db
    .prepare("SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name")
    .all()
    .map((row) => String(row["name"]))
}

/** The column names of `table`, in declaration order. */
export function columnNames(db: Database, table: string): string[] {
  return db
    .prepare(`PRAGMA table_info(${table})`)
    .all()
    .map((row) => String(row["name"]))
}
