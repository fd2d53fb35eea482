import { afterEach, beforeEach, describe, expect, it } from "vitest"
import type { Database } from "../../../src/store/driver.js"
import { migrate, readSchemaVersion } from "../../../src/store/migrate.js"
import { columnNames, databaseAtVersion, tableNames } from "../../helpers/store-database.js"

const NEW_TABLES: Record<string, string[]> = {
  session_state: [
    "session_id",
    "epoch",
    "last_execute_pass",
    "boundary_seq",
    "drain_started_at",
    "calibration_tokens",
    "calibrated_message_id",
    "last_nudge_pass",
    "last_nudge_level",
    "last_reduce_pass",
    "history_json",
    "updated_at",
  ],
  placements: ["id", "session_id", "epoch", "kind", "anchor_id", "level", "text", "placed_pass"],
  reduce_calls: [
    "id",
    "session_id",
    "turn_message_id",
    "at",
    "drop_argument",
    "queued",
    "deferred",
    "rejected",
    "refused_reason",
  ],
}

const TAG_COLUMNS_0001 = [
  "session_id",
  "tag",
  "kind",
  "message_id",
  "part_id",
  "tool",
  "status",
  "created_pass",
  "dropped_pass",
]

const SESSION = "INSERT INTO sessions (id, source, created_at, updated_at) VALUES ('s1', 'replay', 1, 1)"
const TAG = "INSERT INTO tags (session_id, tag, kind, message_id, part_id) VALUES ('s1', 1, 'message', 'm1', 'p1')"
const STATE = "INSERT INTO session_state (session_id, updated_at) VALUES ('s1', 1)"
const PLACEMENT =
  "INSERT INTO placements (session_id, epoch, kind, anchor_id, level, text, placed_pass) " +
  "VALUES ('s1', 0, 'nudge', 'p1', 'gentle', 'reminder', 1)"
const REDUCE_CALL =
  "INSERT INTO reduce_calls (session_id, at, drop_argument, queued, deferred, rejected) " +
  "VALUES ('s1', 1, '3-5', 3, 0, 0)"

describe("migrateTo0002", () => {
  let db: Database

  beforeEach(() => {
    db = databaseAtVersion(2)
    db.exec("PRAGMA foreign_keys = ON")
  })

  afterEach(() => {
    db.close()
  })

  it("sets the schema version to 2", () => {
    expect(readSchemaVersion(db)).toBe(2)
  })

  it("adds exactly the context-reduction tables", () => {
    const before = databaseAtVersion(1)
    try {
      expect(tableNames(db)).toEqual([...tableNames(before), ...Object.keys(NEW_TABLES)].sort())
    } finally {
      before.close()
    }
  })

  it.each(Object.entries(NEW_TABLES))("gives %s its columns", (table, columns) => {
    expect(columnNames(db, table)).toEqual(columns)
  })

  it.each(Object.keys(NEW_TABLES))("declares %s STRICT", (table) => {
    const row = db.prepare("SELECT strict FROM pragma_table_list WHERE schema = 'main' AND name = ?").get([table])
    expect(row).toEqual({ strict: 1 })
  })

  it("adds dropped_reason and superseded_by to tags, after the existing columns", () => {
    expect(columnNames(db, "tags")).toEqual([...TAG_COLUMNS_0001, "dropped_reason", "superseded_by"])
  })

  it("gives a session_state row its defaults", () => {
    db.exec(SESSION)
    db.exec(STATE)
    expect(db.prepare("SELECT * FROM session_state").get()).toEqual({
      session_id: "s1",
      epoch: 0,
      last_execute_pass: null,
      boundary_seq: 0,
      drain_started_at: null,
      calibration_tokens: 0,
      calibrated_message_id: null,
      last_nudge_pass: null,
      last_nudge_level: null,
      last_reduce_pass: null,
      history_json: null,
      updated_at: 1,
    })
  })

  it.each(["reduce", "reclaim", "smart", "superseded"])("accepts the drop reason %s", (reason) => {
    db.exec(SESSION)
    db.exec(TAG)
    db.exec(`UPDATE tags SET status = 'dropped', dropped_reason = '${reason}', superseded_by = 2 WHERE tag = 1`)
    expect(db.prepare("SELECT dropped_reason, superseded_by FROM tags").get()).toEqual({
      dropped_reason: reason,
      superseded_by: 2,
    })
  })

  it.each([
    ["tags.dropped_reason", "UPDATE tags SET dropped_reason = 'bored' WHERE tag = 1"],
    ["placements.kind", PLACEMENT.replace("'nudge'", "'banner'")],
  ])("enforces the CHECK on %s", (_column, statement) => {
    db.exec(SESSION)
    db.exec(TAG)
    expect(() => db.exec(statement)).toThrow(/CHECK constraint failed/)
  })

  it.each([
    ["tags.superseded_by", "UPDATE tags SET superseded_by = 'newer' WHERE tag = 1"],
    ["session_state.epoch", "INSERT INTO session_state (session_id, epoch, updated_at) VALUES ('s1', 'one', 1)"],
    [
      "session_state.drain_started_at",
      "INSERT INTO session_state (session_id, drain_started_at, updated_at) VALUES ('s1', 1.5, 1)",
    ],
    ["placements.placed_pass", PLACEMENT.replace("'reminder', 1)", "'reminder', 'first')")],
    ["reduce_calls.queued", REDUCE_CALL.replace("'3-5', 3,", "'3-5', 'three',")],
  ])("refuses a value of the wrong type in %s", (_column, statement) => {
    db.exec(SESSION)
    db.exec(TAG)
    expect(() => db.exec(statement)).toThrow(/cannot store/)
  })

  it("refuses a second session_state row for one session", () => {
    db.exec(SESSION)
    db.exec(STATE)
    expect(() => db.exec(STATE)).toThrow(/UNIQUE constraint failed: session_state.session_id/)
  })

  it.each([
    ["session_state", STATE],
    ["placements", PLACEMENT],
    ["reduce_calls", REDUCE_CALL],
  ])("refuses a %s row of an unknown session", (_table, statement) => {
    expect(() => db.exec(statement)).toThrow(/FOREIGN KEY constraint failed/)
  })

  it("deletes a session's applied state, placements and ctx_reduce calls with it", () => {
    db.exec(SESSION)
    db.exec(STATE)
    db.exec(PLACEMENT)
    db.exec(REDUCE_CALL)
    db.exec("DELETE FROM sessions WHERE id = 's1'")
    const count = (table: string): unknown => db.prepare(`SELECT COUNT(*) AS n FROM ${table}`).get()?.["n"]
    expect([count("session_state"), count("placements"), count("reduce_calls")]).toEqual([0, 0, 0])
  })

  it("indexes placements by epoch and ctx_reduce calls by turn", () => {
    const indexes = db
      .prepare(
        "SELECT name, tbl_name FROM sqlite_schema WHERE type = 'index' AND name NOT LIKE 'sqlite_%' ORDER BY name",
      )
      .all()
    expect(indexes).toEqual(
      expect.arrayContaining([
        { name: "placements_by_epoch", tbl_name: "placements" },
        { name: "reduce_calls_by_turn", tbl_name: "reduce_calls" },
      ]),
    )
  })

  it("keeps the tags a version-1 store already holds, live and without a reason", () => {
    const old = databaseAtVersion(1)
    try {
      old.exec(SESSION)
      old.exec(TAG)
      migrate(old, { file: ":memory:", upTo: 2 })
      expect(readSchemaVersion(old)).toBe(2)
      expect(old.prepare("SELECT tag, status, dropped_reason, superseded_by FROM tags").all()).toEqual([
        { tag: 1, status: "live", dropped_reason: null, superseded_by: null },
      ])
    } finally {
      old.close()
    }
  })
})
