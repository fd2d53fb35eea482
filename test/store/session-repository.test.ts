import { afterEach, beforeEach, describe, expect, it } from "vitest"
import { emptySessionState, initialAppliedState } from "../../src/session/session-state.js"
import {
  insertPlacement,
  markOperationsApplied,
  markTagsDropped,
  queueDrops,
  recordReduceCall,
  saveAppliedState,
} from "../../src/store/applied-state-repository.js"
import type { Database } from "../../src/store/driver.js"
import { writeIngestPlan } from "../../src/store/ingest-repository.js"
import { recordPass, type PassRecord } from "../../src/store/pass-repository.js"
import { insertCompartment, recordSelections } from "../../src/store/compartment-repository.js"
import { insertPin } from "../../src/store/pin-repository.js"
import { ensureSession, listSessions, loadSessionState, resetDerivedState } from "../../src/store/session-repository.js"
import { ingestPlan, newMessage, newTag, newTextPart, newToolPart } from "../helpers/ingest-plan-builder.js"
import { openMemoryStore, replaySession } from "../helpers/store-database.js"

function pass(sessionId: string, seq: number): PassRecord {
  return {
    sessionId,
    seq,
    startedAt: 1_000 + seq,
    durationMs: 1.5,
    trigger: "replay",
    decision: "replay",
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

describe("ensureSession", () => {
  let db: Database

  beforeEach(async () => {
    db = await openMemoryStore()
  })

  afterEach(() => {
    db.close()
  })

  it("creates the session row with fresh counters", () => {
    ensureSession(db, { id: "s1", source: "opencode", projectId: "p1", directory: "/repo", title: "Fix it" }, 42)
    expect(db.prepare("SELECT * FROM sessions").all()).toEqual([
      {
        id: "s1",
        source: "opencode",
        project_id: "p1",
        directory: "/repo",
        title: "Fix it",
        next_tag: 1,
        next_seq: 1,
        created_at: 42,
        updated_at: 42,
      },
    ])
  })

  it("keeps an existing session as it is", () => {
    ensureSession(db, replaySession("s1", { title: "first" }), 1)
    ensureSession(db, replaySession("s1", { title: "second", source: "opencode" }), 2)
    expect(db.prepare("SELECT source, title, created_at, updated_at FROM sessions").all()).toEqual([
      { source: "replay", title: "first", created_at: 1, updated_at: 1 },
    ])
  })
})

describe("loadSessionState", () => {
  let db: Database

  beforeEach(async () => {
    db = await openMemoryStore()
  })

  afterEach(() => {
    db.close()
  })

  it("returns an empty state for a session the store has never seen", () => {
    expect(loadSessionState(db, "nobody", () => 4)).toEqual(emptySessionState("nobody"))
  })

  it("restores counters, part token counts and tags exactly", () => {
    ensureSession(db, replaySession("s1"), 1)
    ensureSession(db, replaySession("other"), 1)
    const plan = ingestPlan({
      sessionId: "s1",
      messages: [newMessage({ id: "m1", seq: 1 }), newMessage({ id: "m2", seq: 2, role: "assistant" })],
      parts: [
        newTextPart({ id: "p1", messageId: "m1", text: "please fix", tokens: 11 }),
        newTextPart({ id: "p2", messageId: "m2", text: "on it", kind: "assistant", tokens: 7 }),
        newToolPart({
          id: "p3",
          messageId: "m2",
          position: 1,
          tool: "bash",
          status: "completed",
          tokens: 120,
          callTokens: 9,
        }),
        newToolPart({
          id: "p4",
          messageId: "m2",
          position: 2,
          tool: "read",
          status: "running",
          tokens: 0,
          callTokens: 5,
        }),
      ],
      tags: [
        newTag({ tag: 1, partId: "p1", messageId: "m1" }),
        newTag({ tag: 2, partId: "p2", messageId: "m2" }),
        newTag({ tag: 3, partId: "p3", messageId: "m2", kind: "tool", tool: "bash" }),
      ],
      nextTag: 4,
      nextSeq: 3,
    })
    writeIngestPlan(db, plan, 10)
    db.exec("UPDATE tags SET status = 'dropped', dropped_reason = 'superseded', superseded_by = 3 WHERE tag = 2")
    recordPass(db, pass("s1", 1))
    recordPass(db, pass("s1", 2))
    recordPass(db, pass("other", 9))

    const state = loadSessionState(db, "s1", (tag) => 100 + tag)

    expect(state.sessionId).toBe("s1")
    expect({ nextTag: state.nextTag, nextSeq: state.nextSeq, nextPass: state.nextPass }).toEqual({
      nextTag: 4,
      nextSeq: 3,
      nextPass: 3,
    })
    expect(Object.fromEntries(state.messageSeq)).toEqual({ m1: 1, m2: 2 })
    expect(Object.fromEntries(state.parts)).toEqual({
      p1: { messageId: "m1", kind: "user", final: true, hash: plan.parts[0]?.hash, tokens: 11, callTokens: 0 },
      p2: { messageId: "m2", kind: "assistant", final: true, hash: plan.parts[1]?.hash, tokens: 7, callTokens: 0 },
      p3: { messageId: "m2", kind: "tool", final: true, hash: plan.parts[2]?.hash, tokens: 120, callTokens: 9 },
      p4: { messageId: "m2", kind: "tool", final: false, hash: plan.parts[3]?.hash, tokens: 0, callTokens: 5 },
    })
    const tag = (tag: number, kind: string, messageId: string, tool: string | null, status: string) => ({
      tag,
      kind,
      messageId,
      partId: `p${tag}`,
      tool,
      status,
      droppedReason: status === "dropped" ? "superseded" : null,
      supersededBy: status === "dropped" ? 3 : null,
      prefixTokens: 100 + tag,
    })
    const tag1 = tag(1, "message", "m1", null, "live")
    const tag2 = tag(2, "message", "m2", null, "dropped")
    const tag3 = tag(3, "tool", "m2", "bash", "live")
    expect([...state.tagsByNumber.entries()]).toEqual([
      [1, tag1],
      [2, tag2],
      [3, tag3],
    ])
    expect(Object.fromEntries(state.tagsByPart)).toEqual({ p1: tag1, p2: tag2, p3: tag3 })
    expect(state.tagsByPart.get("p3")).toBe(state.tagsByNumber.get(3))
  })

  it("restores the applied state, the current epoch's placements and the drops still queued", () => {
    ensureSession(db, replaySession("s1"), 1)
    writeIngestPlan(
      db,
      ingestPlan({
        sessionId: "s1",
        messages: [newMessage({ id: "m1", seq: 1 })],
        parts: [
          newTextPart({ id: "p1", messageId: "m1", text: "hi" }),
          newTextPart({ id: "p2", messageId: "m1", text: "x" }),
        ],
        tags: [newTag({ tag: 1, partId: "p1", messageId: "m1" }), newTag({ tag: 2, partId: "p2", messageId: "m1" })],
      }),
      1,
    )
    const applied = {
      ...initialAppliedState(),
      epoch: 2,
      lastExecutePass: 7,
      boundarySeq: 1,
      drain: { active: true as const, startedAt: 500 },
      calibrationTokens: 321,
      calibratedMessageId: "m1",
      lastNudgePass: 6,
      lastNudgeLevel: "firm",
      lastReducePass: 5,
      history: { foldedThroughSeq: 1, text: "so far", tokens: 2 },
    }
    saveAppliedState(db, "s1", applied, 9)
    const old = { kind: "nudge" as const, anchorId: "p1", level: "gentle", text: "old epoch", placedPass: 3 }
    const nudge = { kind: "nudge" as const, anchorId: "p1", level: "firm", text: "drop §1§", placedPass: 8 }
    const steer = { kind: "steer" as const, anchorId: "m1", level: "ceiling", text: "steer", placedPass: 8 }
    insertPlacement(db, "s1", 1, old)
    insertPlacement(db, "s1", 2, nudge)
    insertPlacement(db, "s1", 2, steer)
    const [first, second] = queueDrops(db, "s1", [2, 1], { pass: 8, now: 10 })
    markOperationsApplied(db, [first?.operationId ?? -1], 9)

    const state = loadSessionState(db, "s1", () => 1)
    expect(state.applied).toEqual({ ...applied, placements: [nudge, steer] })
    expect([...state.queued.entries()]).toEqual([[1, { operationId: second?.operationId, tag: 1, queuedPass: 8 }]])
  })

  it("starts passes at 1 for a stored session without passes", () => {
    ensureSession(db, replaySession("s1"), 1)
    expect(loadSessionState(db, "s1", () => 0).nextPass).toBe(1)
  })
})

describe("listSessions", () => {
  let db: Database

  beforeEach(async () => {
    db = await openMemoryStore()
  })

  afterEach(() => {
    db.close()
  })

  it("lists sessions newest first with their row counts", () => {
    ensureSession(db, replaySession("old", { directory: "/a", title: "Old" }), 1)
    ensureSession(db, replaySession("new"), 5)
    ensureSession(db, replaySession("tie-b"), 3)
    ensureSession(db, replaySession("tie-a"), 3)
    writeIngestPlan(
      db,
      ingestPlan({
        sessionId: "old",
        messages: [newMessage({ id: "m1", seq: 1 })],
        parts: [newTextPart({ id: "p1", messageId: "m1", text: "hi" })],
        tags: [newTag({ tag: 1, partId: "p1", messageId: "m1" })],
      }),
      9,
    )
    recordPass(db, pass("old", 1))

    const sessions = listSessions(db)
    expect(sessions.map((session) => session.id)).toEqual(["old", "new", "tie-a", "tie-b"])
    expect(sessions[0]).toEqual({
      id: "old",
      source: "replay",
      directory: "/a",
      title: "Old",
      messages: 1,
      tags: 1,
      passes: 1,
      updatedAt: 9,
    })
    expect(sessions[1]).toMatchObject({ id: "new", directory: null, title: null, messages: 0, tags: 0, passes: 0 })
  })

  it("returns at most `limit` sessions", () => {
    for (const id of ["a", "b", "c"]) ensureSession(db, replaySession(id), 1)
    expect(listSessions(db, 2).map((session) => session.id)).toEqual(["a", "b"])
  })
})

describe("resetDerivedState", () => {
  let db: Database

  /** A session with raw material, a pass, and everything passes derive from it. */
  function seed(sessionId: string): void {
    ensureSession(db, replaySession(sessionId), 1)
    writeIngestPlan(
      db,
      ingestPlan({
        sessionId,
        messages: [newMessage({ id: "m1", seq: 1 }), newMessage({ id: "m2", seq: 2, role: "assistant" })],
        parts: [
          newTextPart({ id: `${sessionId}-p1`, messageId: "m1", text: "hi" }),
          newToolPart({ id: `${sessionId}-p2`, messageId: "m2", tool: "read", status: "completed", output: "x" }),
          newToolPart({
            id: `${sessionId}-p3`,
            messageId: "m2",
            tool: "read",
            status: "completed",
            output: "y",
            position: 1,
          }),
        ],
        tags: [
          newTag({ tag: 1, partId: `${sessionId}-p1`, messageId: "m1" }),
          newTag({ tag: 2, partId: `${sessionId}-p2`, messageId: "m2", kind: "tool", tool: "read" }),
          newTag({ tag: 3, partId: `${sessionId}-p3`, messageId: "m2", kind: "tool", tool: "read" }),
        ],
      }),
      1,
    )
    recordPass(db, pass(sessionId, 1))
    markTagsDropped(db, sessionId, [{ tag: 2, reason: "superseded", supersededBy: 3 }], 1)
    queueDrops(db, sessionId, [3], { pass: 1, now: 1 })
    recordReduceCall(db, {
      sessionId,
      turnMessageId: "m1",
      at: 1,
      dropArgument: "3",
      queued: 1,
      deferred: 0,
      rejected: 0,
      refusedReason: null,
    })
    const history = { foldedThroughSeq: 1, text: "h", tokens: 1 }
    saveAppliedState(db, sessionId, { ...initialAppliedState(), epoch: 2, history }, 1)
    const placement = { kind: "nudge" as const, anchorId: `${sessionId}-p3`, level: "gentle", text: "r", placedPass: 1 }
    insertPlacement(db, sessionId, 0, placement)
    insertPin(db, sessionId, { tag: 1, text: "hi", pinnedBy: "agent" }, 1)
    insertCompartment(db, {
      id: `${sessionId}#c1`,
      sessionId,
      seq: 1,
      firstMessageSeq: 1,
      lastMessageSeq: 1,
      firstTag: 1,
      lastTag: 1,
      outcome: null,
      sourceTokens: 2,
      representations: [
        {
          tier: "anchor",
          strategy: "canonical-record",
          content: "[c1]",
          tokens: 1,
          generatorModel: null,
          promptVersion: null,
          survivalContract: "anchor",
          sourceRefs: { tags: [1], messageIds: ["m1"] },
        },
      ],
      facts: [
        { kind: "constraint", text: "hi", retention: "PIN", floor: "exact", source: { tags: [1], messageIds: ["m1"] } },
      ],
      createdPass: 1,
      createdAt: 1,
    })
    recordSelections(db, [
      {
        sessionId,
        passId: null,
        compartmentId: `${sessionId}#c1`,
        tier: "anchor",
        previousTier: null,
        reason: "new",
        pressure: 70,
        firstDivergence: null,
        mutationRadius: null,
        policyVersion: "selection-v1",
        appliedAt: 1,
      },
    ])
  }

  const TABLES = [
    "messages",
    "parts",
    "tags",
    "passes",
    "session_state",
    "placements",
    "operations",
    "reduce_calls",
    "compartments",
    "selections",
    "pins",
  ]
  const count = (table: string, sessionId: string): number =>
    Number(db.prepare(`SELECT COUNT(*) AS n FROM ${table} WHERE session_id = ?`).get([sessionId])?.["n"])
  const counts = (sessionId: string): Record<string, number> =>
    Object.fromEntries(TABLES.map((table) => [table, count(table, sessionId)]))

  beforeEach(async () => {
    db = await openMemoryStore()
    seed("s1")
    seed("s2")
  })

  afterEach(() => {
    db.close()
  })

  it("forgets what passes derived and keeps the raw material, the tags and the pass records", () => {
    const seeded = counts("s1")
    expect(seeded).toEqual({
      messages: 2,
      parts: 3,
      tags: 3,
      passes: 1,
      session_state: 1,
      placements: 1,
      operations: 1,
      reduce_calls: 1,
      compartments: 1,
      selections: 1,
      pins: 1,
    })
    resetDerivedState(db, "s1")
    expect(counts("s1")).toEqual({
      ...seeded,
      session_state: 0,
      placements: 0,
      operations: 0,
      reduce_calls: 0,
      compartments: 0,
      selections: 0,
      pins: 0,
    })
    expect(db.prepare("SELECT COUNT(*) AS n FROM items").get()).toEqual({ n: 1 })
    expect(db.prepare("SELECT COUNT(*) AS n FROM representations").get()).toEqual({ n: 1 })
  })

  it("makes every tag live again, with its number and part", () => {
    resetDerivedState(db, "s1")
    const tags = db.prepare(
      "SELECT tag, part_id, status, dropped_reason, superseded_by, dropped_pass FROM tags WHERE session_id = 's1' ORDER BY tag",
    )
    const live = { status: "live", dropped_reason: null, superseded_by: null, dropped_pass: null }
    expect(tags.all()).toEqual([1, 2, 3].map((tag) => ({ tag, part_id: `s1-p${tag}`, ...live })))
  })

  it("leaves other sessions alone", () => {
    const other = counts("s2")
    resetDerivedState(db, "s1")
    expect(counts("s2")).toEqual(other)
    const dropped = db.prepare("SELECT status FROM tags WHERE session_id = 's2' AND tag = 2").get()
    expect(dropped).toEqual({ status: "dropped" })
  })

  it("loads as a session with its tags and no applied state", () => {
    resetDerivedState(db, "s1")
    const state = loadSessionState(db, "s1", () => 0)
    expect(state.applied).toEqual(initialAppliedState())
    expect(state.queued.size).toBe(0)
    expect([...state.tagsByNumber.values()].map((tag) => tag.status)).toEqual(["live", "live", "live"])
    expect([state.nextTag, state.nextSeq, state.nextPass]).toEqual([4, 3, 2])
  })

  it("does nothing for a session the store does not know", () => {
    const before = [counts("s1"), counts("s2")]
    resetDerivedState(db, "nobody")
    expect([counts("s1"), counts("s2")]).toEqual(before)
  })
})
