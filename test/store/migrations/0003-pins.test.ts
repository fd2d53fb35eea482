import { afterEach, beforeEach, describe, expect, it } from "vitest"
import type { Database } from "../../../src/store/driver.js"
import { migrate, readSchemaVersion } from "../../../src/store/migrate.js"
import { columnNames, databaseAtVersion, tableNames } from "../../helpers/store-database.js"

const SESSION = "INSERT INTO sessions (id, source, created_at, updated_at) VALUES ('s1', 'replay', 1, 1)"
const PIN = "INSERT INTO pins (session_id, tag, text, pinned_by, created_at) VALUES ('s1', 4, 'keep me', 'agent', 1)"

describe("migrateTo0003", () => {
  let db: Database

  beforeEach(() => {
    db = databaseAtVersion(3)
    db.exec("PRAGMA foreign_keys = ON")
  })

  afterEach(() => {
    db.close()
  })

  it("sets the schema version to 3", () => {
    expect(readSchemaVersion(db)).toBe(3)
  })

  it("adds exactly the pins table", () => {
    const before = databaseAtVersion(2)
    try {
      expect(tableNames(db)).toEqual([...tableNames(before), "pins"].sort())
    } finally {
      before.close()
    }
  })

  it("gives pins its columns", () => {
    expect(columnNames(db, "pins")).toEqual(["session_id", "tag", "text", "pinned_by", "created_at"])
  })

  it("declares pins STRICT", () => {
    const row = db.prepare("SELECT strict FROM pragma_table_list WHERE schema = 'main' AND name = 'pins'").get()
    expect(row).toEqual({ strict: 1 })
  })

  it("stores a pin as written", () => {
    db.exec(SESSION)
    db.exec(PIN)
    expect(db.prepare("SELECT * FROM pins").all()).toEqual([
      { session_id: "s1", tag: 4, text: "keep me", pinned_by: "agent", created_at: 1 },
    ])
  })

  it.each(["agent", "user"])("accepts pinned_by %s", (by) => {
    db.exec(SESSION)
    db.exec(PIN.replace("'agent'", `'${by}'`))
    expect(db.prepare("SELECT pinned_by FROM pins").get()).toEqual({ pinned_by: by })
  })

  it("enforces the CHECK on pins.pinned_by", () => {
    db.exec(SESSION)
    expect(() => db.exec(PIN.replace("'agent'", "'config'"))).toThrow(/CHECK constraint failed/)
  })

  it.each([
    ["pins.tag", PIN.replace("'s1', 4,", "'s1', 'four',")],
    ["pins.created_at", PIN.replace("'agent', 1)", "'agent', 1.5)")],
  ])("refuses a value of the wrong type in %s", (_column, statement) => {
    db.exec(SESSION)
    expect(() => db.exec(statement)).toThrow(/cannot store/)
  })

  it.each([
    ["text", PIN.replace("'keep me'", "NULL")],
    ["pinned_by", PIN.replace("'agent'", "NULL")],
  ])("requires %s", (_column, statement) => {
    db.exec(SESSION)
    expect(() => db.exec(statement)).toThrow(/NOT NULL constraint failed/)
  })

  it("refuses a second pin of the same tag in one session, and allows the tag in another session", () => {
    db.exec(SESSION)
    db.exec(SESSION.replace("'s1'", "'s2'"))
    db.exec(PIN)
    expect(() => db.exec(PIN)).toThrow(/UNIQUE constraint failed: pins.session_id, pins.tag/)
    db.exec(PIN.replace("'s1'", "'s2'"))
    expect(db.prepare("SELECT COUNT(*) AS n FROM pins").get()).toEqual({ n: 2 })
  })

  it("refuses a pin of an unknown session", () => {
    expect(() => db.exec(PIN)).toThrow(/FOREIGN KEY constraint failed/)
  })

  it("deletes a session's pins with it", () => {
    db.exec(SESSION)
    db.exec(PIN)
    db.exec("DELETE FROM sessions WHERE id = 's1'")
    expect(db.prepare("SELECT COUNT(*) AS n FROM pins").get()).toEqual({ n: 0 })
  })

  it("keeps what a version-2 store already holds", () => {
    const old = databaseAtVersion(2)
    try {
      old.exec(SESSION)
      old.exec("INSERT INTO session_state (session_id, epoch, updated_at) VALUES ('s1', 4, 1)")
      migrate(old, { file: ":memory:", upTo: 3 })
      expect(readSchemaVersion(old)).toBe(3)
      expect(old.prepare("SELECT session_id, epoch FROM session_state").all()).toEqual([{ session_id: "s1", epoch: 4 }])
      expect(old.prepare("SELECT COUNT(*) AS n FROM pins").get()).toEqual({ n: 0 })
    } finally {
      old.close()
    }
  })
})
