import { afterEach, beforeEach, describe, expect, it } from "vitest"
import type { Database } from "../../../src/store/driver.js"
import { readSchemaVersion } from "../../../src/store/migrate.js"
import { columnNames, databaseAtVersion, tableNames } from "../../helpers/store-database.js"

const COLUMNS: Record<string, string[]> = {
  meta: ["key", "value"],
  sessions: ["id", "source", "project_id", "directory", "title", "next_tag", "next_seq", "created_at", "updated_at"],
  messages: ["session_id", "id", "seq", "role", "created_at", "info_json", "stored_at"],
  parts: [
    "session_id",
    "message_id",
    "id",
    "position",
    "type",
    "kind",
    "tool",
    "status",
    "final",
    "content_json",
    "content_hash",
    "tokens",
    "call_tokens",
    "stored_at",
  ],
  tags: ["session_id", "tag", "kind", "message_id", "part_id", "tool", "status", "created_pass", "dropped_pass"],
  operations: ["id", "session_id", "kind", "tag", "status", "reason", "queued_at", "queued_pass", "applied_pass"],
  passes: [
    "id",
    "session_id",
    "seq",
    "started_at",
    "duration_ms",
    "trigger",
    "decision",
    "band",
    "usage_tokens",
    "window_tokens",
    "message_count",
    "new_parts",
    "new_tags",
    "rendered_tokens",
    "rendered_hash",
    "first_divergence",
    "detail_json",
    "error",
  ],
  errors: ["id", "session_id", "at", "hook", "code", "message", "stack"],
  compartments: [
    "id",
    "session_id",
    "seq",
    "first_message_seq",
    "last_message_seq",
    "first_tag",
    "last_tag",
    "episode_type",
    "outcome",
    "source_tokens",
    "status",
    "created_pass",
    "folded_pass",
    "created_at",
  ],
  items: ["id", "compartment_id", "kind", "retention", "floor", "text", "source_refs_json", "pinned_by"],
  representations: [
    "id",
    "compartment_id",
    "tier",
    "strategy",
    "content",
    "tokens",
    "survival_contract",
    "source_refs_json",
    "generator_model",
    "prompt_version",
    "created_at",
  ],
  selections: [
    "id",
    "session_id",
    "pass_id",
    "compartment_id",
    "tier",
    "previous_tier",
    "reason",
    "pressure",
    "first_divergence",
    "mutation_radius",
    "policy_version",
    "applied_at",
  ],
}

const SESSION = "INSERT INTO sessions (id, source, created_at, updated_at) VALUES ('s1', 'replay', 1, 1)"
const MESSAGE =
  "INSERT INTO messages (session_id, id, seq, role, info_json, stored_at) VALUES ('s1', 'm1', 1, 'user', '{}', 1)"
const PART =
  "INSERT INTO parts (session_id, message_id, id, position, type, kind, final, content_json, content_hash, tokens, " +
  "call_tokens, stored_at) VALUES ('s1', 'm1', 'p1', 0, 'text', 'user', 1, '{}', 'h', 3, 0, 1)"
const TAG = "INSERT INTO tags (session_id, tag, kind, message_id, part_id) VALUES ('s1', 1, 'message', 'm1', 'p1')"

describe("migrateTo0001", () => {
  let db: Database

  beforeEach(() => {
    db = databaseAtVersion(1)
    db.exec("PRAGMA foreign_keys = ON")
  })

  afterEach(() => {
    db.close()
  })

  it("sets the schema version to 1", () => {
    expect(readSchemaVersion(db)).toBe(1)
  })

  it("creates exactly the initial tables", () => {
    expect(tableNames(db)).toEqual(Object.keys(COLUMNS).sort())
  })

  it.each(Object.entries(COLUMNS))("gives %s its columns", (table, columns) => {
    expect(columnNames(db, table)).toEqual(columns)
  })

  it.each(Object.keys(COLUMNS))("declares %s STRICT", (table) => {
    const row = db.prepare("SELECT strict FROM pragma_table_list WHERE schema = 'main' AND name = ?").get([table])
    expect(row).toEqual({ strict: 1 })
  })

  it.each([
    [
      "sessions.next_tag",
      "INSERT INTO sessions (id, source, next_tag, created_at, updated_at) VALUES ('s2', 'replay', 'many', 1, 1)",
    ],
    [
      "sessions.created_at",
      "INSERT INTO sessions (id, source, created_at, updated_at) VALUES ('s2', 'replay', 1.5, 1)",
    ],
    [
      "messages.seq",
      "INSERT INTO messages (session_id, id, seq, role, info_json, stored_at) VALUES ('s1', 'm2', 'first', 'user', '{}', 1)",
    ],
    ["parts.content_json", PART.replace("'{}', 'h'", "x'00ff', 'h'").replace("'p1'", "'p2'")],
    [
      "tags.tag",
      "INSERT INTO tags (session_id, tag, kind, message_id, part_id) VALUES ('s1', 'one', 'message', 'm1', 'p9')",
    ],
    [
      "passes.duration_ms",
      "INSERT INTO passes (session_id, seq, started_at, duration_ms, trigger, decision, message_count, new_parts, " +
        "new_tags, detail_json) VALUES ('s1', 1, 1, 'slow', 'replay', 'replay', 0, 0, 0, '{}')",
    ],
    ["errors.at", "INSERT INTO errors (at, hook, message) VALUES ('noon', 'transform', 'boom')"],
    ["meta.value", "INSERT INTO meta (key, value) VALUES ('k', x'00')"],
  ])("refuses a value of the wrong type in %s", (_column, insert) => {
    db.exec(SESSION)
    db.exec(MESSAGE)
    db.exec(PART)
    expect(() => db.exec(insert)).toThrow(/cannot store/)
  })

  it.each([
    ["sessions.source", "INSERT INTO sessions (id, source, created_at, updated_at) VALUES ('s2', 'cli', 1, 1)"],
    ["parts.kind", PART.replace("'user', 1, '{}'", "'robot', 1, '{}'").replace("'p1'", "'p2'")],
    ["parts.final", PART.replace("'user', 1, '{}'", "'user', 2, '{}'").replace("'p1'", "'p2'")],
    ["tags.tag", TAG.replace("'s1', 1,", "'s1', 0,")],
    [
      "tags.status",
      "INSERT INTO tags (session_id, tag, kind, message_id, part_id, status) VALUES ('s1', 2, 'tool', 'm1', 'p2', 'gone')",
    ],
  ])("enforces the CHECK on %s", (_column, insert) => {
    db.exec(SESSION)
    db.exec(MESSAGE)
    db.exec(PART)
    expect(() => db.exec(insert)).toThrow(/CHECK constraint failed/)
  })

  it("refuses a second tag on the same part", () => {
    db.exec(SESSION)
    db.exec(MESSAGE)
    db.exec(PART)
    db.exec(TAG)
    const secondTag = TAG.replace("'s1', 1,", "'s1', 2,")
    expect(() => db.exec(secondTag)).toThrow(/UNIQUE constraint failed: tags.session_id, tags.part_id/)
  })

  it("refuses a part of an unknown message", () => {
    db.exec(SESSION)
    expect(() => db.exec(PART)).toThrow(/FOREIGN KEY constraint failed/)
  })

  it("deletes a session's messages, parts and tags with it", () => {
    db.exec(SESSION)
    db.exec(MESSAGE)
    db.exec(PART)
    db.exec(TAG)
    db.exec("DELETE FROM sessions WHERE id = 's1'")
    const count = (table: string): unknown => db.prepare(`SELECT COUNT(*) AS n FROM ${table}`).get()?.["n"]
    expect([count("messages"), count("parts"), count("tags")]).toEqual([0, 0, 0])
  })
})
