import { describe, expect, it } from "vitest"
import { openNodeDatabase } from "../../src/store/driver-node.js"
import type { Database } from "../../src/store/driver.js"
import { migrate, readSchemaVersion } from "../../src/store/migrate.js"
import { MIGRATIONS, SCHEMA_VERSION, type Migration } from "../../src/store/migrations/index.js"
import { expectPluginError } from "../transcript/expect-plugin-error.js"
import { tableNames } from "../helpers/store-database.js"

function withRawDatabase(use: (db: Database) => void): void {
  const db = openNodeDatabase(":memory:")
  try {
    use(db)
  } finally {
    db.close()
  }
}

const createTable =
  (name: string): Migration["up"] =>
  (db) =>
    db.exec(`CREATE TABLE ${name} (id INTEGER PRIMARY KEY) STRICT`)

describe("readSchemaVersion", () => {
  it("reads 0 on a new database and the stored user_version after", () => {
    withRawDatabase((db) => {
      expect(readSchemaVersion(db)).toBe(0)
      db.exec("PRAGMA user_version = 7")
      expect(readSchemaVersion(db)).toBe(7)
    })
  })
})

describe("migrate", () => {
  it("brings a new database to SCHEMA_VERSION and reports the versions", () => {
    withRawDatabase((db) => {
      expect(migrate(db, { file: ":memory:" })).toEqual({ from: 0, to: SCHEMA_VERSION })
      expect(readSchemaVersion(db)).toBe(SCHEMA_VERSION)
      expect(SCHEMA_VERSION).toBe(MIGRATIONS.length)
    })
  })

  it("does nothing on a database that is already current", () => {
    withRawDatabase((db) => {
      migrate(db, { file: ":memory:" })
      const schema = db.prepare("SELECT name, sql FROM sqlite_schema ORDER BY name").all()
      expect(migrate(db, { file: ":memory:" })).toEqual({ from: SCHEMA_VERSION, to: SCHEMA_VERSION })
      expect(db.prepare("SELECT name, sql FROM sqlite_schema ORDER BY name").all()).toEqual(schema)
    })
  })

  it("runs only the migrations above the stored version, in order", () => {
    withRawDatabase((db) => {
      const ran: number[] = []
      const migrations: Migration[] = [1, 2, 3].map((version) => ({
        version,
        up: () => {
          ran.push(version)
        },
      }))
      expect(migrate(db, { file: "test.db", migrations, upTo: 1 })).toEqual({ from: 0, to: 1 })
      expect(migrate(db, { file: "test.db", migrations })).toEqual({ from: 1, to: 3 })
      expect(ran).toEqual([1, 2, 3])
      expect(readSchemaVersion(db)).toBe(3)
    })
  })

  it.each([
    [0, 0],
    [1, 1],
    [2, 2],
    [3, 3],
    [9, 3],
  ])("stops at upTo %i (schema version %i)", (upTo, expected) => {
    withRawDatabase((db) => {
      const migrations = ["a", "b", "c"].map((name, index) => ({ version: index + 1, up: createTable(name) }))
      expect(migrate(db, { file: "test.db", migrations, upTo }).to).toBe(expected)
      expect(readSchemaVersion(db)).toBe(expected)
      expect(tableNames(db)).toEqual(["a", "b", "c"].slice(0, expected))
    })
  })

  it("rolls back a migration that throws and reports migration_failed", () => {
    withRawDatabase((db) => {
      const migrations: Migration[] = [
        { version: 1, up: createTable("first") },
        {
          version: 2,
          up: (inner) => {
            inner.exec("CREATE TABLE half_done (id INTEGER PRIMARY KEY) STRICT")
            inner.exec("INSERT INTO half_done (id) VALUES (1)")
            throw new Error("disk on fire")
          },
        },
        { version: 3, up: createTable("never") },
      ]
      const error = expectPluginError(() => migrate(db, { file: "/data/store.db", migrations }), "migration_failed", [
        "/data/store.db",
        "schema version 2",
        "disk on fire",
      ])
      expect(error.data).toEqual({ file: "/data/store.db", version: 2 })
      expect(readSchemaVersion(db)).toBe(1)
      expect(tableNames(db)).toEqual(["first"])
    })
  })

  it("leaves the connection usable after a failed migration", () => {
    withRawDatabase((db) => {
      const failing: Migration[] = [
        {
          version: 1,
          up: () => {
            throw new Error("nope")
          },
        },
      ]
      expectPluginError(() => migrate(db, { file: "x.db", migrations: failing }), "migration_failed", ["nope"])
      const fixed: Migration[] = [{ version: 1, up: createTable("ok") }]
      expect(migrate(db, { file: "x.db", migrations: fixed })).toEqual({ from: 0, to: 1 })
      expect(tableNames(db)).toEqual(["ok"])
    })
  })

  it("refuses a database newer than the registry with db_from_future and changes nothing", () => {
    withRawDatabase((db) => {
      db.exec("PRAGMA user_version = 5")
      const error = expectPluginError(
        () => migrate(db, { file: "/home/me/store.db", migrations: [{ version: 1, up: createTable("t") }] }),
        "db_from_future",
        ["/home/me/store.db", "schema version 5", "versions up to 1", "upgrade magic-context"],
      )
      expect(error.data).toEqual({ file: "/home/me/store.db", version: 5, supported: 1 })
      expect(readSchemaVersion(db)).toBe(5)
      expect(tableNames(db)).toEqual([])
    })
  })

  it("rejects a registry with a gap before touching the database", () => {
    withRawDatabase((db) => {
      const migrations = [
        { version: 1, up: createTable("a") },
        { version: 3, up: createTable("c") },
      ]
      expect(() => migrate(db, { file: "x.db", migrations })).toThrow(/out of order at position 1: version 3/)
      expect(readSchemaVersion(db)).toBe(0)
      expect(tableNames(db)).toEqual([])
    })
  })
})
