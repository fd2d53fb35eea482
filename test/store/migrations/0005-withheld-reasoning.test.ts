import { afterEach, beforeEach, describe, expect, it } from "vitest"
import type { Database } from "../../../src/store/driver.js"
import { readSchemaVersion } from "../../../src/store/migrate.js"
import { columnNames, databaseAtVersion, tableNames } from "../../helpers/store-database.js"

const SESSION = "INSERT INTO sessions (id, source, created_at, updated_at) VALUES ('s1', 'replay', 1, 1)"
const MESSAGE = "INSERT INTO messages (session_id, id, seq, role, info_json, stored_at) VALUES ('s1', 'm1', 1, 'assistant', '{}', 1)"
const PART =
  "INSERT INTO parts (session_id, message_id, id, position, type, kind, final, content_json, content_hash, tokens, call_tokens, stored_at) " +
  "VALUES ('s1', 'm1', 'p1', 0, 'reasoning', 'reasoning', 1, '{}', 'h', 7, 0, 1)"

describe("migrateTo0005", () => {
  let db: Database

  beforeEach(() => {
    db = databaseAtVersion(5)
  })

  afterEach(() => {
    db.close()
  })

  it("sets the schema version to 5", () => {
    expect(readSchemaVersion(db)).toBe(5)
  })

  it("adds withheld_pass to parts and no table", () => {
    const before = databaseAtVersion(4)
    try {
      expect(tableNames(db)).toEqual(tableNames(before))
      expect(columnNames(db, "parts")).toEqual([...columnNames(before, "parts"), "withheld_pass"])
    } finally {
      before.close()
    }
  })

  it("stores a part as sent (withheld_pass NULL) unless a pass withholds it", () => {
    db.exec(SESSION)
    db.exec(MESSAGE)
    db.exec(PART)
    expect(db.prepare("SELECT withheld_pass FROM parts WHERE id = 'p1'").get()).toEqual({ withheld_pass: null })
    db.exec("UPDATE parts SET withheld_pass = 3 WHERE id = 'p1'")
    expect(db.prepare("SELECT withheld_pass FROM parts WHERE id = 'p1'").get()).toEqual({ withheld_pass: 3 })
  })
})
