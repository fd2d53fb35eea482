import { join } from "node:path"
import BetterSqlite3 from "better-sqlite3"
import { afterEach, describe, expect, it } from "vitest"
import { PluginError } from "../../src/plugin-error.js"
import { isBusyError, storeFailureKind } from "../../src/store/store-failure.js"
import { holdStoreLock } from "../helpers/store-lock.js"
import { createTempDirs } from "../helpers/temp-dirs.js"

const dirs = createTempDirs()
afterEach(() => dirs.cleanup())

/** The error better-sqlite3 throws when another connection holds the write lock. */
function realBusyError(): unknown {
  const file = join(dirs.make("failure"), "store.db")
  new BetterSqlite3(file).close()
  const lock = holdStoreLock(file)
  const db = new BetterSqlite3(file, { timeout: 0 })
  try {
    db.exec("CREATE TABLE t (x)")
    return null
  } catch (error) {
    return error
  } finally {
    db.close()
    lock.release()
  }
}

describe("storeFailureKind", () => {
  it.each([
    ["better-sqlite3's SQLITE_BUSY", realBusyError, "busy"],
    // bun:sqlite throws an SQLiteError with the same code.
    ["bun:sqlite's SQLITE_BUSY", () => Object.assign(new Error("database is locked"), { code: "SQLITE_BUSY" }), "busy"],
    ["an extended busy code", () => Object.assign(new Error("x"), { code: "SQLITE_BUSY_SNAPSHOT" }), "busy"],
    [
      "openDatabase's wrapping of a lock",
      () => new PluginError("db_open_failed", "/s.db: cannot use this file as the magic-context store: database is locked"),
      "busy",
    ],
    ["a store from a newer version", () => new PluginError("db_from_future", "/s.db: schema 9 is newer"), "from-future"],
    ["a file that is not a database", () => new PluginError("db_open_failed", "/s.db: file is not a database"), "unusable"],
    ["a failed migration", () => new PluginError("migration_failed", "/s.db: migration 2 failed"), "unusable"],
    ["a corrupt page met mid-session", () => Object.assign(new Error("malformed"), { code: "SQLITE_CORRUPT" }), "unusable"],
    ["a full disk", () => Object.assign(new Error("disk full"), { code: "SQLITE_FULL" }), "unusable"],
  ])("reads %s as %s", (_name, make, kind) => {
    expect(storeFailureKind(make())).toBe(kind)
  })

  it.each([
    ["a plain error", new Error("boom")],
    ["a bad tool argument", new PluginError("invalid_argument", "drop: expected tags")],
    ["a thrown string", "database"],
    ["null", null],
  ])("reads %s as no store failure", (_name, error) => {
    expect(storeFailureKind(error)).toBeNull()
    expect(isBusyError(error)).toBe(false)
  })
})
