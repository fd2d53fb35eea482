import { afterEach, beforeEach, describe, expect, it } from "vitest"
import type { Database } from "../../../src/store/driver.js"
import { migrate, readSchemaVersion } from "../../../src/store/migrate.js"
import { columnNames, databaseAtVersion, tableNames } from "../../helpers/store-database.js"

const SESSION = "INSERT INTO sessions (id, source, project_id, directory, title, next_tag, next_seq, created_at, updated_at) VALUES ('s1', 'opencode', 'p', '/w', 't', 7, 9, 1, 2)"
const MESSAGE = "INSERT INTO messages (session_id, id, seq, role, created_at, info_json, stored_at) VALUES ('s1', 'm1', 1, 'user', 1, '{}', 1)"

/** A version-3 store holding a session with a message and a pin, its foreign keys on (as the plugin opens it). */
function storeAtVersion3(): Database {
  const db = databaseAtVersion(3)
  db.exec("PRAGMA foreign_keys = ON")
  db.exec(SESSION)
  db.exec(MESSAGE)
  db.exec("INSERT INTO pins (session_id, tag, text, pinned_by, created_at) VALUES ('s1', 4, 'keep me', 'agent', 1)")
  return db
}

describe("migrateTo0004", () => {
  let db: Database

  beforeEach(() => {
    db = storeAtVersion3()
    migrate(db, { file: ":memory:", upTo: 4 })
  })

  afterEach(() => {
    db.close()
  })

  it("sets the schema version to 4 and adds no table", () => {
    expect(readSchemaVersion(db)).toBe(4)
    const before = databaseAtVersion(3)
    try {
      expect(tableNames(db)).toEqual(tableNames(before))
      expect(columnNames(db, "sessions")).toEqual(columnNames(before, "sessions"))
    } finally {
      before.close()
    }
  })

  it("keeps every session row and every row that references one (nothing cascaded)", () => {
    expect(db.prepare("SELECT * FROM sessions").all()).toEqual([
      { id: "s1", source: "opencode", project_id: "p", directory: "/w", title: "t", next_tag: 7, next_seq: 9, created_at: 1, updated_at: 2 },
    ])
    expect(db.prepare("SELECT id FROM messages").all()).toEqual([{ id: "m1" }])
    expect(db.prepare("SELECT tag FROM pins").all()).toEqual([{ tag: 4 }])
  })

  it("turns foreign keys back on, and they still cascade from the rebuilt table", () => {
    expect(db.prepare("PRAGMA foreign_keys").get()).toEqual({ foreign_keys: 1 })
    expect(() => db.exec(MESSAGE.replace("'s1', 'm1'", "'s9', 'm1'"))).toThrow(/FOREIGN KEY constraint failed/)
    db.exec("DELETE FROM sessions WHERE id = 's1'")
    expect(db.prepare("SELECT COUNT(*) AS n FROM messages").get()).toEqual({ n: 0 })
    expect(db.prepare("SELECT COUNT(*) AS n FROM pins").get()).toEqual({ n: 0 })
  })

  it("accepts Pi sessions, and still refuses a source it does not know", () => {
    db.exec(SESSION.replace("'s1', 'opencode'", "'s2', 'pi'"))
    expect(db.prepare("SELECT source FROM sessions WHERE id = 's2'").get()).toEqual({ source: "pi" })
    expect(() => db.exec(SESSION.replace("'s1', 'opencode'", "'s3', 'cursor'"))).toThrow(/CHECK constraint failed/)
  })

  it("keeps sessions STRICT", () => {
    expect(db.prepare("SELECT strict FROM pragma_table_list WHERE schema = 'main' AND name = 'sessions'").get()).toEqual({ strict: 1 })
  })

  it("leaves foreign keys off when they were off", () => {
    const raw = databaseAtVersion(3)
    raw.exec("PRAGMA foreign_keys = OFF")
    try {
      migrate(raw, { file: ":memory:", upTo: 4 })
      expect(raw.prepare("PRAGMA foreign_keys").get()).toEqual({ foreign_keys: 0 })
    } finally {
      raw.close()
    }
  })

  it("rolls back and turns foreign keys on again when the rebuild fails", () => {
    const old = storeAtVersion3()
    try {
      const failing = [{ version: 1, up: () => undefined }, { version: 2, up: () => undefined }, { version: 3, up: () => undefined }, {
        version: 4,
        rebuildsTables: true as const,
        up: (store: Database) => {
          store.exec("DELETE FROM sessions")
        },
      }]
      expect(() => migrate(old, { file: "x.db", migrations: failing })).toThrow(/x\.db: migration to schema version 4 failed: 2 rows reference missing parents/)
      expect(readSchemaVersion(old)).toBe(3)
      expect(old.prepare("SELECT COUNT(*) AS n FROM sessions").get()).toEqual({ n: 1 })
      expect(old.prepare("PRAGMA foreign_keys").get()).toEqual({ foreign_keys: 1 })
    } finally {
      old.close()
    }
  })
})
