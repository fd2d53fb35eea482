import { afterEach, beforeEach, describe, expect, it } from "vitest"
import { initialAppliedState, type AppliedState } from "../../src/session/session-state.js"
import {
  countReduceCalls,
  insertPlacement,
  listQueuedDrops,
  loadAppliedState,
  markOperationsApplied,
  markTagsDropped,
  queueDrops,
  recordReduceCall,
  saveAppliedState,
} from "../../src/store/applied-state-repository.js"
import type { Database } from "../../src/store/driver.js"
import { writeIngestPlan } from "../../src/store/ingest-repository.js"
import { ensureSession } from "../../src/store/session-repository.js"
import { ingestPlan, newMessage, newTag, newTextPart } from "../helpers/ingest-plan-builder.js"
import { replaySession, storeWithSession } from "../helpers/store-database.js"

const SESSION = "s1"
let db: Database

beforeEach(async () => {
  db = await storeWithSession(SESSION)
  const parts = [1, 2, 3].map((tag) => newTextPart({ id: `p${tag}`, messageId: "m1", text: "x", position: tag }))
  const tags = [1, 2, 3].map((tag) => newTag({ tag, partId: `p${tag}`, messageId: "m1", kind: "tool", tool: "read" }))
  writeIngestPlan(db, ingestPlan({ sessionId: SESSION, messages: [newMessage({ id: "m1", seq: 1 })], parts, tags }), 1)
})

afterEach(() => {
  db.close()
})

const applied = (overrides: Partial<AppliedState> = {}): AppliedState => ({
  ...initialAppliedState(),
  epoch: 3,
  lastExecutePass: 9,
  boundarySeq: 12,
  drain: { active: true, startedAt: 1_234 },
  calibrationTokens: -40,
  calibratedMessageId: "m7",
  lastNudgePass: 8,
  lastNudgeLevel: "firm",
  lastReducePass: 7,
  history: { foldedThroughSeq: 5, text: "so far", tokens: 2 },
  ...overrides,
})

describe("loadAppliedState", () => {
  it("gives the initial state for a session that never saved one", () => {
    expect(loadAppliedState(db, SESSION)).toEqual(initialAppliedState())
  })

  it("reads back what saveAppliedState wrote, and the latest write wins", () => {
    saveAppliedState(db, SESSION, applied(), 10)
    expect(loadAppliedState(db, SESSION)).toEqual(applied())
    const next = applied({
      epoch: 4,
      drain: { active: false },
      history: null,
      calibratedMessageId: null,
      lastNudgeLevel: null,
    })
    saveAppliedState(db, SESSION, next, 11)
    expect(loadAppliedState(db, SESSION)).toEqual(next)
    expect(db.prepare("SELECT COUNT(*) AS n, MAX(updated_at) AS at FROM session_state").get()).toEqual({ n: 1, at: 11 })
  })

  it("loads only the placements of the current epoch, in insertion order", () => {
    saveAppliedState(db, SESSION, applied({ epoch: 2 }), 1)
    const placement = (text: string, kind: "nudge" | "steer" = "nudge") => ({
      kind,
      anchorId: "p1",
      level: "gentle",
      text,
      placedPass: 1,
    })
    insertPlacement(db, SESSION, 1, placement("old"))
    insertPlacement(db, SESSION, 2, placement("first"))
    insertPlacement(db, SESSION, 2, placement("second", "steer"))
    expect(loadAppliedState(db, SESSION).placements.map((entry) => [entry.kind, entry.text])).toEqual([
      ["nudge", "first"],
      ["steer", "second"],
    ])
  })

  it("keeps the pass a history was folded at, and reads a history stored without it as it was", () => {
    const history = { foldedThroughSeq: 4, text: "<session-history>…", tokens: 12 }
    saveAppliedState(db, SESSION, applied({ history: { ...history, foldedAtPass: 7 } }), 1)
    expect(loadAppliedState(db, SESSION).history).toEqual({ ...history, foldedAtPass: 7 })
    db.exec(`UPDATE session_state SET history_json = '${JSON.stringify(history)}'`)
    expect(loadAppliedState(db, SESSION).history).toEqual(history)
  })

  it("refuses a stored history that does not fit its schema", () => {
    saveAppliedState(db, SESSION, applied(), 1)
    db.exec(`UPDATE session_state SET history_json = '{"foldedThroughSeq":"five"}'`)
    expect(() => loadAppliedState(db, SESSION)).toThrow(/session_state.history_json does not fit its schema/)
  })
})

describe("markTagsDropped", () => {
  it("drops live tags with their reason and pass, and never rewrites a dropped one", () => {
    markTagsDropped(
      db,
      SESSION,
      [{ tag: 1, reason: "superseded", supersededBy: 3 }, { tag: 2, reason: "reclaim", supersededBy: null }],
      4,
    )
    markTagsDropped(db, SESSION, [{ tag: 1, reason: "reduce", supersededBy: null }], 5)
    const tags = db
      .prepare("SELECT tag, status, dropped_reason, superseded_by, dropped_pass FROM tags ORDER BY tag")
      .all()
    expect(tags).toEqual([
      { tag: 1, status: "dropped", dropped_reason: "superseded", superseded_by: 3, dropped_pass: 4 },
      { tag: 2, status: "dropped", dropped_reason: "reclaim", superseded_by: null, dropped_pass: 4 },
      { tag: 3, status: "live", dropped_reason: null, superseded_by: null, dropped_pass: null },
    ])
  })

  it("touches only the given session", async () => {
    ensureSession(db, replaySession("s2"), 1)
    markTagsDropped(db, "s2", [{ tag: 1, reason: "reduce", supersededBy: null }], 1)
    expect(db.prepare("SELECT COUNT(*) AS n FROM tags WHERE status = 'dropped'").get()).toEqual({ n: 0 })
  })
})

describe("queueDrops", () => {
  it("queues drops with increasing operation ids and lists those still queued, oldest first", () => {
    const queued = queueDrops(db, SESSION, [3, 1, 2], { pass: 6, now: 100 })
    expect(queued.map((drop) => [drop.tag, drop.queuedPass])).toEqual([
      [3, 6],
      [1, 6],
      [2, 6],
    ])
    expect(queued.map((drop) => drop.operationId)).toEqual(
      [...queued.map((drop) => drop.operationId)].sort((a, b) => a - b),
    )
    db.exec(`UPDATE operations SET status = 'cancelled' WHERE tag = 2`)
    markOperationsApplied(db, [queued[0]?.operationId ?? -1, queued[2]?.operationId ?? -1], 7)
    expect(listQueuedDrops(db, SESSION)).toEqual([queued[1]])
    expect(db.prepare("SELECT tag, status, applied_pass FROM operations ORDER BY id").all()).toEqual([
      { tag: 3, status: "applied", applied_pass: 7 },
      { tag: 1, status: "queued", applied_pass: null },
      { tag: 2, status: "cancelled", applied_pass: null },
    ])
  })

  it("queues with a null pass", () => {
    expect(queueDrops(db, SESSION, [1], { pass: null, now: 1 })[0]?.queuedPass).toBeNull()
    expect(listQueuedDrops(db, SESSION)[0]?.queuedPass).toBeNull()
  })
})

describe("countReduceCalls", () => {
  it("counts the session's ctx_reduce calls of one turn, refused ones included", () => {
    const call = (turnMessageId: string | null, refusedReason: string | null = null) =>
      recordReduceCall(db, {
        sessionId: SESSION,
        turnMessageId,
        at: 1,
        dropArgument: "1",
        queued: 0,
        deferred: 0,
        rejected: 0,
        refusedReason,
      })
    call("u1")
    call("u1", "too small")
    call("u2")
    call(null)
    expect(countReduceCalls(db, SESSION, "u1")).toBe(2)
    expect(countReduceCalls(db, SESSION, "u2")).toBe(1)
    expect(countReduceCalls(db, SESSION, "u3")).toBe(0)
    expect(countReduceCalls(db, SESSION, null)).toBe(1)
    expect(countReduceCalls(db, "other", "u1")).toBe(0)
  })
})
