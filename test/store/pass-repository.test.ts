import { afterEach, beforeEach, describe, expect, it } from "vitest"
import type { Database } from "../../src/store/driver.js"
import { listPasses, recordPass, type PassRecord } from "../../src/store/pass-repository.js"
import { storeWithSession } from "../helpers/store-database.js"

const SESSION = "s1"

function minimalPass(seq: number): PassRecord {
  return {
    sessionId: SESSION,
    seq,
    startedAt: 1_000 * seq,
    durationMs: 0.25,
    trigger: "transform",
    decision: "passthrough",
    band: null,
    usageTokens: null,
    windowTokens: null,
    messageCount: 0,
    newParts: 0,
    newTags: 0,
    renderedTokens: null,
    renderedHash: null,
    firstDivergence: null,
    detail: {},
    error: null,
  }
}

describe("recordPass", () => {
  let db: Database

  beforeEach(async () => {
    db = await storeWithSession(SESSION)
  })

  afterEach(() => {
    db.close()
  })

  it("round-trips every field", () => {
    const full: PassRecord = {
      sessionId: SESSION,
      seq: 1,
      startedAt: 1_700_000_000_000,
      durationMs: 12.75,
      trigger: "replay",
      decision: "execute",
      band: "amber",
      usageTokens: 120_000,
      windowTokens: 200_000,
      messageCount: 42,
      newParts: 3,
      newTags: 2,
      renderedTokens: 118_000,
      renderedHash: "abc123",
      firstDivergence: 17,
      detail: { composition: { total: 5, user: 5 }, newTags: [1, 2], note: "ünïcode §1§" },
      error: "partial failure",
    }
    recordPass(db, full)
    expect(listPasses(db, SESSION)).toEqual([full])
  })

  it("round-trips a pass with every optional field null", () => {
    recordPass(db, minimalPass(1))
    expect(listPasses(db, SESSION)).toEqual([minimalPass(1)])
  })

  it("stores detail as JSON text", () => {
    recordPass(db, { ...minimalPass(1), detail: { a: [1, 2] } })
    expect(db.prepare("SELECT detail_json FROM passes").get()).toEqual({ detail_json: '{"a":[1,2]}' })
  })

  it("refuses a second pass with the same sequence number", () => {
    recordPass(db, minimalPass(1))
    expect(() => recordPass(db, minimalPass(1))).toThrow(/UNIQUE constraint failed: passes.session_id, passes.seq/)
  })

  it("refuses a pass for an unknown session", () => {
    expect(() => recordPass(db, { ...minimalPass(1), sessionId: "ghost" })).toThrow(/FOREIGN KEY constraint failed/)
  })
})

describe("listPasses", () => {
  let db: Database

  beforeEach(async () => {
    db = await storeWithSession(SESSION)
    db.exec("INSERT INTO sessions (id, source, created_at, updated_at) VALUES ('s2', 'replay', 1, 1)")
  })

  afterEach(() => {
    db.close()
  })

  it("lists a session's passes newest first, up to the limit", () => {
    for (const seq of [2, 1, 3, 4]) recordPass(db, minimalPass(seq))
    recordPass(db, { ...minimalPass(9), sessionId: "s2" })
    expect(listPasses(db, SESSION).map((pass) => pass.seq)).toEqual([4, 3, 2, 1])
    expect(listPasses(db, SESSION, 2).map((pass) => pass.seq)).toEqual([4, 3])
    expect(listPasses(db, "s2").map((pass) => pass.seq)).toEqual([9])
  })

  it.each([
    ["not JSON", "{oops"],
    ["an array", "[1,2]"],
    ["null", "null"],
    ["a number", "3"],
  ])("reads detail stored as %s as an empty object", (_label, stored) => {
    recordPass(db, minimalPass(1))
    db.prepare("UPDATE passes SET detail_json = ?").run([stored])
    expect(listPasses(db, SESSION)[0]?.detail).toEqual({})
  })
})
