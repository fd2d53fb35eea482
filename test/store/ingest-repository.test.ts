import { afterEach, beforeEach, describe, expect, it } from "vitest"
import type { Database } from "../../src/store/driver.js"
import { writeIngestPlan } from "../../src/store/ingest-repository.js"
import { countSessionRows, readRawParts } from "../../src/store/raw-repository.js"
import { ingestPlan, newMessage, newTag, newTextPart, newToolPart } from "../helpers/ingest-plan-builder.js"
import { storeWithSession } from "../helpers/store-database.js"

const SESSION = "s1"

function partRow(db: Database, id: string): Record<string, unknown> | undefined {
  return db
    .prepare("SELECT status, final, content_json, content_hash, tokens, call_tokens, stored_at FROM parts WHERE id = ?")
    .get([id])
}

function firstPlan() {
  return ingestPlan({
    sessionId: SESSION,
    messages: [newMessage({ id: "m1", seq: 1, createdAt: 500 }), newMessage({ id: "m2", seq: 2, role: "assistant" })],
    parts: [
      newTextPart({ id: "p1", messageId: "m1", text: "fix the bug" }),
      newTextPart({ id: "p2", messageId: "m2", text: "looking", kind: "assistant" }),
      newToolPart({ id: "p3", messageId: "m2", position: 1, tool: "bash", status: "completed", output: "ok" }),
    ],
    tags: [
      newTag({ tag: 1, partId: "p1", messageId: "m1" }),
      newTag({ tag: 2, partId: "p2", messageId: "m2" }),
      newTag({ tag: 3, partId: "p3", messageId: "m2", kind: "tool", tool: "bash" }),
    ],
  })
}

describe("writeIngestPlan", () => {
  let db: Database

  beforeEach(async () => {
    db = await storeWithSession(SESSION)
  })

  afterEach(() => {
    db.close()
  })

  it("stores messages, parts and tags and advances the session counters", () => {
    writeIngestPlan(db, firstPlan(), 2_000)
    expect(countSessionRows(db, SESSION)).toEqual({ messages: 2, parts: 3, tags: 3, passes: 0 })
    const messages = db
      .prepare("SELECT id, seq, role, created_at, info_json, stored_at FROM messages ORDER BY seq")
      .all()
    expect(messages).toEqual([
      { id: "m1", seq: 1, role: "user", created_at: 500, info_json: '{"id":"m1","role":"user"}', stored_at: 2_000 },
      {
        id: "m2",
        seq: 2,
        role: "assistant",
        created_at: null,
        info_json: '{"id":"m2","role":"assistant"}',
        stored_at: 2_000,
      },
    ])
    expect(db.prepare("SELECT tag, kind, message_id, part_id, tool, status FROM tags ORDER BY tag").all()).toEqual([
      { tag: 1, kind: "message", message_id: "m1", part_id: "p1", tool: null, status: "live" },
      { tag: 2, kind: "message", message_id: "m2", part_id: "p2", tool: null, status: "live" },
      { tag: 3, kind: "tool", message_id: "m2", part_id: "p3", tool: "bash", status: "live" },
    ])
    expect(db.prepare("SELECT next_tag, next_seq, created_at, updated_at FROM sessions").get()).toEqual({
      next_tag: 4,
      next_seq: 3,
      created_at: 1_000,
      updated_at: 2_000,
    })
  })

  it("stores a part's columns as given", () => {
    const plan = firstPlan()
    writeIngestPlan(db, plan, 2_000)
    const tool = plan.parts[2]
    expect(db.prepare("SELECT * FROM parts WHERE id = 'p3'").get()).toEqual({
      session_id: SESSION,
      message_id: "m2",
      id: "p3",
      position: 1,
      type: "tool",
      kind: "tool",
      tool: "bash",
      status: "completed",
      final: 1,
      content_json: JSON.stringify(tool?.content),
      content_hash: tool?.hash,
      tokens: 2,
      call_tokens: 3,
      stored_at: 2_000,
      withheld_pass: null,
    })
  })

  it("is idempotent: writing the same plan twice leaves the same rows", () => {
    writeIngestPlan(db, firstPlan(), 2_000)
    const snapshot = (): unknown[] => [
      db.prepare("SELECT * FROM messages ORDER BY id").all(),
      db.prepare("SELECT * FROM parts ORDER BY id").all(),
      db.prepare("SELECT * FROM tags ORDER BY tag").all(),
      db.prepare("SELECT * FROM sessions").all(),
    ]
    const before = snapshot()
    writeIngestPlan(db, firstPlan(), 2_000)
    expect(countSessionRows(db, SESSION)).toEqual({ messages: 2, parts: 3, tags: 3, passes: 0 })
    expect(snapshot()).toEqual(before)
  })

  it("never overwrites the content of a final part", () => {
    writeIngestPlan(db, firstPlan(), 2_000)
    const before = partRow(db, "p3")
    const rewritten = ingestPlan({
      sessionId: SESSION,
      parts: [
        newToolPart({
          id: "p3",
          messageId: "m2",
          position: 1,
          tool: "bash",
          status: "error",
          output: "other text",
          tokens: 99,
        }),
      ],
      nextTag: 4,
      nextSeq: 3,
    })
    writeIngestPlan(db, rewritten, 3_000)
    expect(partRow(db, "p3")).toEqual(before)
    expect(readRawParts(db, SESSION).find((part) => part.id === "p3")?.content).toMatchObject({
      state: { status: "completed", output: "ok" },
    })
  })

  it("never overwrites a final text part, even with a non-final version", () => {
    writeIngestPlan(db, firstPlan(), 2_000)
    const before = partRow(db, "p1")
    const stale = newTextPart({ id: "p1", messageId: "m1", text: "edited", tokens: 1 })
    writeIngestPlan(db, ingestPlan({ sessionId: SESSION, parts: [{ ...stale, final: false }] }), 3_000)
    expect(partRow(db, "p1")).toEqual(before)
  })

  it("replaces a non-final part (a running tool) by its final version", () => {
    const running = newToolPart({ id: "t1", messageId: "m1", tool: "bash", status: "running", tokens: 0 })
    const message = newMessage({ id: "m1", seq: 1 })
    writeIngestPlan(db, ingestPlan({ sessionId: SESSION, messages: [message], parts: [running] }), 2_000)
    expect(partRow(db, "t1")).toMatchObject({ status: "running", final: 0, tokens: 0, stored_at: 2_000 })

    const completed = newToolPart({
      id: "t1",
      messageId: "m1",
      tool: "bash",
      status: "completed",
      output: "all tests pass",
      tokens: 4,
      callTokens: 5,
    })
    writeIngestPlan(db, ingestPlan({ sessionId: SESSION, parts: [completed], nextSeq: 2 }), 3_000)
    expect(partRow(db, "t1")).toEqual({
      status: "completed",
      final: 1,
      content_json: JSON.stringify(completed.content),
      content_hash: completed.hash,
      tokens: 4,
      call_tokens: 5,
      stored_at: 3_000,
    })
    expect(countSessionRows(db, SESSION).parts).toBe(1)
  })

  it("replaces a non-final part by a newer non-final version", () => {
    const pending = newToolPart({ id: "t1", messageId: "m1", tool: "bash", status: "pending" })
    const running = newToolPart({ id: "t1", messageId: "m1", tool: "bash", status: "running", output: "partial" })
    const message = newMessage({ id: "m1", seq: 1 })
    writeIngestPlan(db, ingestPlan({ sessionId: SESSION, messages: [message], parts: [pending] }), 2_000)
    writeIngestPlan(db, ingestPlan({ sessionId: SESSION, parts: [running], nextSeq: 2 }), 3_000)
    expect(partRow(db, "t1")).toMatchObject({ status: "running", final: 0, content_json: JSON.stringify(running.content) })
  })

  it("keeps the first message row and the first tag when a plan repeats their ids", () => {
    writeIngestPlan(db, firstPlan(), 2_000)
    const again = ingestPlan({
      sessionId: SESSION,
      messages: [newMessage({ id: "m1", seq: 7, role: "assistant" })],
      tags: [newTag({ tag: 3, partId: "p2", messageId: "m2", kind: "file" })],
    })
    writeIngestPlan(db, again, 3_000)
    expect(db.prepare("SELECT seq, role, stored_at FROM messages WHERE id = 'm1'").get()).toEqual({
      seq: 1,
      role: "user",
      stored_at: 2_000,
    })
    expect(db.prepare("SELECT kind, part_id FROM tags WHERE tag = 3").get()).toEqual({ kind: "tool", part_id: "p3" })
  })

  it("keeps each session's rows apart", () => {
    writeIngestPlan(db, firstPlan(), 2_000)
    db.exec("INSERT INTO sessions (id, source, created_at, updated_at) VALUES ('s2', 'replay', 1, 1)")
    writeIngestPlan(db, { ...firstPlan(), sessionId: "s2" }, 2_000)
    expect(countSessionRows(db, "s2")).toEqual({ messages: 2, parts: 3, tags: 3, passes: 0 })
    expect(countSessionRows(db, SESSION)).toEqual({ messages: 2, parts: 3, tags: 3, passes: 0 })
  })
})
