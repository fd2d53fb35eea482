import { afterEach, beforeEach, describe, expect, it } from "vitest"
import type { Database } from "../../../src/store/driver.js"
import { migrate, readSchemaVersion } from "../../../src/store/migrate.js"
import { columnNames, databaseAtVersion, tableNames } from "../../helpers/store-database.js"

describe("migrateTo0006", () => {
  let db: Database

  beforeEach(() => {
    db = databaseAtVersion(6)
  })

  afterEach(() => {
    db.close()
  })

  it("sets the schema version to 6", () => {
    expect(readSchemaVersion(db)).toBe(6)
  })

  it("adds instance_id and directory to errors and no table", () => {
    const before = databaseAtVersion(5)
    try {
      expect(tableNames(db)).toEqual(tableNames(before))
      expect(columnNames(db, "errors")).toEqual([...columnNames(before, "errors"), "instance_id", "directory"])
    } finally {
      before.close()
    }
  })

  it("keeps the errors recorded before it, with neither an instance nor a directory (NULL)", () => {
    const older = databaseAtVersion(5)
    try {
      older.exec("INSERT INTO errors (session_id, at, hook, code, message, stack) VALUES (NULL, 1, 'dispose', NULL, 'old', NULL)")
      migrate(older, { file: ":memory:", upTo: 6 })
      expect(older.prepare("SELECT message, instance_id, directory FROM errors").all()).toEqual([
        { message: "old", instance_id: null, directory: null },
      ])
    } finally {
      older.close()
    }
  })
})
