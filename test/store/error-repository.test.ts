import { afterEach, beforeEach, describe, expect, it } from "vitest"
import type { Database } from "../../src/store/driver.js"
import { listErrors, recordError, type ErrorRecord } from "../../src/store/error-repository.js"
import { openMemoryStore } from "../helpers/store-database.js"

function error(at: number, sessionId: string | null, message = `at ${at}`): ErrorRecord {
  return { sessionId, at, hook: "transform", code: null, message, stack: null }
}

describe("recordError", () => {
  let db: Database

  beforeEach(async () => {
    db = await openMemoryStore()
  })

  afterEach(() => {
    db.close()
  })

  it("round-trips every field", () => {
    const full: ErrorRecord = {
      sessionId: "s1",
      at: 1_700_000_000_000,
      hook: "experimental.chat.messages.transform",
      code: "fault_injected",
      message: "boom",
      stack: "Error: boom\n    at x (y.ts:1:1)",
      instanceId: "4242:7f3e",
      directory: "/work/project",
    }
    recordError(db, full)
    expect(listErrors(db)).toEqual([full])
  })

  it("stores an error that belongs to no session, without a session row", () => {
    recordError(db, error(1, null))
    recordError(db, error(2, "never-created"))
    expect(listErrors(db).map((entry) => entry.sessionId)).toEqual(["never-created", null])
  })
})

describe("listErrors", () => {
  let db: Database

  beforeEach(async () => {
    db = await openMemoryStore()
    recordError(db, error(10, "s1", "first"))
    recordError(db, error(30, null, "global"))
    recordError(db, error(20, "s2", "other session"))
    recordError(db, error(30, "s1", "same time, later row"))
  })

  afterEach(() => {
    db.close()
  })

  it("lists every error newest first, later rows first at equal times", () => {
    expect(listErrors(db).map((entry) => entry.message)).toEqual([
      "same time, later row",
      "global",
      "other session",
      "first",
    ])
  })

  it("lists one session's errors and none without a session when no scope is given", () => {
    expect(listErrors(db, { sessionId: "s1" }).map((entry) => entry.message)).toEqual(["same time, later row", "first"])
  })

  it("lists one session's errors plus those without a session of one host instance or one project directory", () => {
    const sessionless = { sessionId: null, hook: "dispose", code: null, stack: null }
    recordError(db, { ...sessionless, at: 40, message: "instance A in /a", instanceId: "A", directory: "/a" })
    recordError(db, { ...sessionless, at: 50, message: "instance B in /a", instanceId: "B", directory: "/a" })
    recordError(db, { ...sessionless, at: 60, message: "instance C in /c", instanceId: "C", directory: "/c" })
    const messages = (sessionless: { instanceId: string } | { directory: string }): string[] =>
      listErrors(db, { sessionId: "s1", sessionless }).map((entry) => entry.message)
    expect(messages({ instanceId: "A" })).toEqual(["instance A in /a", "same time, later row", "first"])
    expect(messages({ instanceId: "C" })).toEqual(["instance C in /c", "same time, later row", "first"])
    expect(messages({ directory: "/a" })).toEqual(["instance B in /a", "instance A in /a", "same time, later row", "first"])
    expect(messages({ instanceId: "nobody" })).toEqual(["same time, later row", "first"])
    // The row with neither (the "global" one) is in no scope.
    expect(messages({ directory: "/c" })).not.toContain("global")
  })

  it.each([
    [1, ["same time, later row"]],
    [2, ["same time, later row", "global"]],
  ])("returns at most %i errors", (limit, messages) => {
    expect(listErrors(db, { limit }).map((entry) => entry.message)).toEqual(messages)
  })

  it("defaults to the 20 newest errors", () => {
    for (let at = 100; at < 130; at += 1) recordError(db, error(at, null))
    const listed = listErrors(db)
    expect(listed).toHaveLength(20)
    expect(listed[0]?.at).toBe(129)
    expect(listed[19]?.at).toBe(110)
  })
})
