import { afterEach, beforeEach, describe, expect, it } from "vitest"
import type { Database } from "../../src/store/driver.js"
import { writeIngestPlan } from "../../src/store/ingest-repository.js"
import { recordPass } from "../../src/store/pass-repository.js"
import { countSessionRows, readRawParts } from "../../src/store/raw-repository.js"
import { ingestPlan, newMessage, newTag, newTextPart, newToolPart } from "../helpers/ingest-plan-builder.js"
import { storeWithSession } from "../helpers/store-database.js"

describe("readRawParts", () => {
  let db: Database

  beforeEach(async () => {
    db = await storeWithSession("s1")
  })

  afterEach(() => {
    db.close()
  })

  it("returns an empty list for a session without parts", () => {
    expect(readRawParts(db, "s1")).toEqual([])
    expect(readRawParts(db, "nobody")).toEqual([])
  })

  it("returns the pristine parts in message sequence, then position order", () => {
    // Written out of order on purpose: message ids sort the other way round from their sequence.
    writeIngestPlan(
      db,
      ingestPlan({
        sessionId: "s1",
        messages: [newMessage({ id: "z-first", seq: 1 }), newMessage({ id: "a-second", seq: 2, role: "assistant" })],
        parts: [
          newToolPart({
            id: "p-tool",
            messageId: "a-second",
            position: 1,
            tool: "grep",
            status: "running",
            tokens: 0,
            callTokens: 6,
          }),
          newTextPart({
            id: "p-answer",
            messageId: "a-second",
            position: 0,
            text: "searching",
            kind: "assistant",
            tokens: 2,
          }),
          newTextPart({ id: "p-question", messageId: "z-first", position: 0, text: "where is §1§?", tokens: 5 }),
        ],
      }),
      1,
    )
    expect(readRawParts(db, "s1")).toEqual([
      {
        messageId: "z-first",
        id: "p-question",
        position: 0,
        type: "text",
        final: true,
        content: { id: "p-question", messageID: "z-first", type: "text", text: "where is §1§?" },
        tokens: 5,
        callTokens: 0,
      },
      {
        messageId: "a-second",
        id: "p-answer",
        position: 0,
        type: "text",
        final: true,
        content: { id: "p-answer", messageID: "a-second", type: "text", text: "searching" },
        tokens: 2,
        callTokens: 0,
      },
      {
        messageId: "a-second",
        id: "p-tool",
        position: 1,
        type: "tool",
        final: false,
        content: {
          id: "p-tool",
          messageID: "a-second",
          type: "tool",
          tool: "grep",
          state: { status: "running", output: "" },
        },
        tokens: 0,
        callTokens: 6,
      },
    ])
  })
})

describe("countSessionRows", () => {
  let db: Database

  beforeEach(async () => {
    db = await storeWithSession("s1")
    db.exec("INSERT INTO sessions (id, source, created_at, updated_at) VALUES ('s2', 'replay', 1, 1)")
  })

  afterEach(() => {
    db.close()
  })

  it("counts zero rows for an empty or unknown session", () => {
    expect(countSessionRows(db, "s1")).toEqual({ messages: 0, parts: 0, tags: 0, passes: 0 })
    expect(countSessionRows(db, "nobody")).toEqual({ messages: 0, parts: 0, tags: 0, passes: 0 })
  })

  it("counts one session's messages, parts, tags and passes", () => {
    writeIngestPlan(
      db,
      ingestPlan({
        sessionId: "s1",
        messages: [newMessage({ id: "m1", seq: 1 }), newMessage({ id: "m2", seq: 2 })],
        parts: [
          newTextPart({ id: "p1", messageId: "m1", text: "a" }),
          newTextPart({ id: "p2", messageId: "m2", text: "b" }),
          newTextPart({ id: "p3", messageId: "m2", position: 1, text: "c" }),
        ],
        tags: [newTag({ tag: 1, partId: "p1", messageId: "m1" })],
      }),
      1,
    )
    writeIngestPlan(
      db,
      ingestPlan({
        sessionId: "s2",
        messages: [newMessage({ id: "m1", seq: 1 })],
        parts: [newTextPart({ id: "p1", messageId: "m1", text: "x" })],
      }),
      1,
    )
    recordPass(db, {
      sessionId: "s1",
      seq: 1,
      startedAt: 1,
      durationMs: 1,
      trigger: "replay",
      decision: "replay",
      band: null,
      usageTokens: null,
      windowTokens: null,
      messageCount: 2,
      newParts: 3,
      newTags: 1,
      renderedTokens: null,
      renderedHash: null,
      firstDivergence: null,
      detail: {},
      error: null,
    })
    expect(countSessionRows(db, "s1")).toEqual({ messages: 2, parts: 3, tags: 1, passes: 1 })
    expect(countSessionRows(db, "s2")).toEqual({ messages: 1, parts: 1, tags: 0, passes: 0 })
  })
})
