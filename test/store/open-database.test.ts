import { chmodSync, existsSync, readFileSync, statSync, writeFileSync } from "node:fs"
import { spawnSync } from "node:child_process"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import BetterSqlite3 from "better-sqlite3"
import { afterEach, describe, expect, it } from "vitest"
import { isBunRuntime, MEMORY_DATABASE, openDatabase } from "../../src/store/open-database.js"
import { readSchemaVersion } from "../../src/store/migrate.js"
import { SCHEMA_VERSION } from "../../src/store/migrations/index.js"
import { isPluginError, type PluginError } from "../../src/plugin-error.js"
import { createTempDirs } from "../helpers/temp-dirs.js"

const dirs = createTempDirs()

afterEach(() => {
  dirs.cleanup()
})

async function openFailure(file: string): Promise<PluginError> {
  const error: unknown = await openDatabase(file).then(
    (db) => {
      db.close()
      return undefined
    },
    (caught: unknown) => caught,
  )
  if (!isPluginError(error)) throw new Error(`expected a PluginError, got ${String(error)}`)
  return error
}

/** The single value a `PRAGMA name` query returns (its column is not always named after the pragma). */
function pragma(db: { prepare(sql: string): { get(): Record<string, unknown> | undefined } }, name: string): unknown {
  const row = db.prepare(`PRAGMA ${name}`).get()
  return row === undefined ? undefined : Object.values(row)[0]
}

/** Reads `PRAGMA user_version` with a plain read-only connection, without migrating anything. */
function rawUserVersion(file: string): number {
  const raw = new BetterSqlite3(file, { readonly: true })
  try {
    return Number(raw.pragma("user_version", { simple: true }))
  } finally {
    raw.close()
  }
}

describe("openDatabase", () => {
  it("opens an in-memory store at the current schema version with the Node driver", async () => {
    const db = await openDatabase(MEMORY_DATABASE)
    try {
      expect(isBunRuntime()).toBe(false)
      expect(db.driver).toBe("better-sqlite3")
      expect(readSchemaVersion(db)).toBe(SCHEMA_VERSION)
      expect(pragma(db, "foreign_keys")).toBe(1)
      expect(pragma(db, "busy_timeout")).toBe(5000)
      expect(pragma(db, "journal_mode")).toBe("memory")
    } finally {
      db.close()
    }
  })

  it("creates a missing file and its folders readable by the owner only", async () => {
    const root = dirs.make("open")
    const folder = join(root, "nested", "store")
    const file = join(folder, "magic-context.db")
    const db = await openDatabase(file)
    db.close()
    expect(statSync(file).mode & 0o777).toBe(0o600)
    expect(statSync(folder).mode & 0o777).toBe(0o700)
    expect(statSync(join(root, "nested")).mode & 0o777).toBe(0o700)
  })

  it("opens a file in WAL mode with foreign keys and a busy timeout", async () => {
    const file = join(dirs.make("open"), "store.db")
    const db = await openDatabase(file)
    try {
      expect(pragma(db, "journal_mode")).toBe("wal")
      expect(pragma(db, "foreign_keys")).toBe(1)
      expect(pragma(db, "busy_timeout")).toBe(5000)
      expect(readSchemaVersion(db)).toBe(SCHEMA_VERSION)
    } finally {
      db.close()
    }
    expect(rawUserVersion(file)).toBe(SCHEMA_VERSION)
  })

  it("waits for another connection's lock as long as it is told, then fails with SQLITE_BUSY", async () => {
    const file = join(dirs.make("open"), "store.db")
    const db = await openDatabase(file, { busyTimeoutMs: 120 })
    const other = new BetterSqlite3(file)
    try {
      expect(pragma(db, "busy_timeout")).toBe(120)
      other.exec("BEGIN EXCLUSIVE")
      const started = performance.now()
      expect(() => db.exec("INSERT INTO meta (key, value) VALUES ('x', 'y')")).toThrow(/database is locked/)
      const waited = performance.now() - started
      expect(waited).toBeGreaterThanOrEqual(100)
      expect(waited).toBeLessThan(1_000)
    } finally {
      other.close()
      db.close()
    }
  })

  it("records which driver and runtime opened the store last", async () => {
    const db = await openDatabase(MEMORY_DATABASE)
    try {
      const row = db.prepare("SELECT value FROM meta WHERE key = 'last_opened_by'").get()
      expect(row?.["value"]).toBe(`better-sqlite3 on node ${process.versions.node}`)
    } finally {
      db.close()
    }
  })

  it("leaves an up-to-date file and its rows unchanged when reopened", async () => {
    const file = join(dirs.make("open"), "store.db")
    const first = await openDatabase(file)
    first.prepare("INSERT INTO sessions (id, source, created_at, updated_at) VALUES ('s1', 'replay', 1, 1)").run()
    const schemaBefore = first.prepare("SELECT type, name, sql FROM sqlite_schema ORDER BY name").all()
    first.close()

    const second = await openDatabase(file)
    try {
      expect(readSchemaVersion(second)).toBe(SCHEMA_VERSION)
      expect(second.prepare("SELECT type, name, sql FROM sqlite_schema ORDER BY name").all()).toEqual(schemaBefore)
      expect(second.prepare("SELECT id FROM sessions").all()).toEqual([{ id: "s1" }])
    } finally {
      second.close()
    }
  })

  it("does not loosen the mode of an existing file", async () => {
    const file = join(dirs.make("open"), "store.db")
    ;(await openDatabase(file)).close()
    ;(await openDatabase(file)).close()
    expect(statSync(file).mode & 0o777).toBe(0o600)
  })

  it("tightens an existing store others can read to the owner's only", async () => {
    const file = join(dirs.make("open"), "shared.db")
    ;(await openDatabase(file)).close()
    chmodSync(file, 0o644)
    ;(await openDatabase(file)).close()
    expect(statSync(file).mode & 0o777).toBe(0o600)
  })

  it("refuses a store written by a newer version and leaves it at that version", async () => {
    const file = join(dirs.make("open"), "future.db")
    const future = SCHEMA_VERSION + 41
    const raw = new BetterSqlite3(file)
    raw.pragma(`user_version = ${future}`)
    raw.exec("CREATE TABLE newer_things (x INTEGER)")
    raw.close()

    const error = await openFailure(file)
    expect(error.code).toBe("db_from_future")
    expect(error.message).toContain(file)
    expect(error.message).toContain(`schema version ${future}`)
    expect(error.message).toContain(`versions up to ${SCHEMA_VERSION}`)
    expect(error.data).toMatchObject({ file, version: future, supported: SCHEMA_VERSION })
    expect(rawUserVersion(file)).toBe(future)
    const check = new BetterSqlite3(file, { readonly: true })
    try {
      const tables = check.prepare("SELECT name FROM sqlite_schema WHERE type = 'table'").all()
      expect(tables).toEqual([{ name: "newer_things" }])
      // Refused before the connection settings: the file's journal mode was not switched to WAL.
      expect(check.pragma("journal_mode", { simple: true })).toBe("delete")
    } finally {
      check.close()
    }
  })

  it.each([
    ["text", "this is definitely not a SQLite database\n".repeat(200)],
    ["a few bytes", "xx"],
    ["binary noise", Buffer.from(Array.from({ length: 8192 }, (_, index) => (index * 7919) % 256))],
  ])("refuses a file holding %s as db_corrupt naming the file", async (_label, content) => {
    const file = join(dirs.make("open"), "not-a-db.db")
    writeFileSync(file, content)
    const before = readFileSync(file)
    const error = await openFailure(file)
    expect(error.code).toBe("db_corrupt")
    expect(error.message).toContain(`${file}: not a SQLite database`)
    expect(error.data).toMatchObject({ file })
    expect(readFileSync(file).equals(before)).toBe(true)
  })

  it("rolls back the hot journal a writer killed mid-transaction left in a rollback-journal store, then opens it", async () => {
    const file = join(dirs.make("open"), "hot.db")
    // A store in SQLite's rollback-journal mode (as another tool may have made it), killed with its transaction open.
    const writer = spawnSync(
      process.execPath,
      [
        "-e",
        `const D = require("better-sqlite3"); const db = new D(${JSON.stringify(file)});
         db.exec("CREATE TABLE t (x TEXT)"); db.exec("INSERT INTO t VALUES ('kept')");
         db.exec("PRAGMA cache_size = 1"); db.exec("BEGIN"); db.exec("DELETE FROM t");
         for (let i = 0; i < 2000; i += 1) db.prepare("INSERT INTO t VALUES (?)").run("x".repeat(200));
         process.kill(process.pid, "SIGKILL")`,
      ],
      { cwd: fileURLToPath(new URL("../../", import.meta.url)) },
    )
    expect(writer.signal).toBe("SIGKILL")
    expect(statSync(`${file}-journal`).size).toBeGreaterThan(0)
    const db = await openDatabase(file)
    try {
      expect(db.prepare("SELECT x FROM t").all()).toEqual([{ x: "kept" }])
      expect(readSchemaVersion(db)).toBe(SCHEMA_VERSION)
    } finally {
      db.close()
    }
  })

  it("reports a path whose folder cannot be created as db_open_failed naming the file", async () => {
    const blocker = join(dirs.make("open"), "a-file")
    writeFileSync(blocker, "")
    const file = join(blocker, "store.db")
    const error = await openFailure(file)
    expect(error.code).toBe("db_open_failed")
    expect(error.message).toContain(file)
    expect(existsSync(file)).toBe(false)
  })
})
