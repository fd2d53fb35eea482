import { describe, expect, it, vi } from "vitest"
import { createHistoryPlanner } from "../../src/pass/history-planner.js"
import { createSession } from "../../src/pass/session.js"
import { createSessionRegistry } from "../../src/pass/session-registry.js"
import { listPasses } from "../../src/store/pass-repository.js"
import type { SessionInfo } from "../../src/store/session-repository.js"
import type { HostMessage } from "../../src/transcript/host-message.js"
import { assistantMessage, fixedClock, freshCopy, memoryStore, ROOMY_WINDOW, text, TEST_SESSION, userMessage } from "../helpers/host-messages.js"
import { tokCounter as counter, toks } from "../helpers/pure-session.js"

const INFO: SessionInfo = { id: TEST_SESSION, source: "opencode", projectId: null, directory: null, title: null }

const turns = (count: number): HostMessage[] =>
  Array.from({ length: count }, (_, index) => [
    userMessage({ id: `msg_u${index}`, created: 10 + index * 10, parts: [text(`prt_u${index}`, `step ${index} ${toks(3 + index)}`)] }),
    assistantMessage({ id: `msg_a${index}`, created: 11 + index * 10, parts: [text(`prt_a${index}`, `done ${index} ${toks(2)}`)] }),
  ]).flat()

const input = (messages: HostMessage[]) => ({
  messages: freshCopy(messages),
  counter,
  clock: fixedClock,
  trigger: "transform" as const,
  tagsVisible: true,
  window: ROOMY_WINDOW,
  fixedTokens: 0,
  now: fixedClock.now(),
  smartDrops: false,
})

describe("createSession", () => {
  it("passes with its own state and caches, keeping the caches from pass to pass", async () => {
    const db = await memoryStore()
    const session = createSession({ db, info: INFO, counter, now: fixedClock.now(), defersRecords: false })
    expect(session.state).not.toHaveProperty("messageMemo")
    const first = session.pass(input(turns(1)))
    const second = session.pass(input(turns(2)))
    expect([first.seq, second.seq]).toEqual([1, 2])
    expect(session.caches.memo.generation).toBe(2)
    expect(listPasses(db, TEST_SESSION).map((record) => record.seq)).toEqual([2, 1])
    db.close()
  })

  it("leaves a quiet pass's record owed when it defers records, and stores it on settle", async () => {
    const db = await memoryStore()
    const session = createSession({ db, info: INFO, counter, now: fixedClock.now(), defersRecords: true })
    session.pass(input(turns(1)))
    expect(session.owed.record?.seq).toBe(1)
    expect(listPasses(db, TEST_SESSION)).toEqual([])
    expect(session.settle()).toBe(false)
    expect(session.owed.record).toBeNull()
    expect(listPasses(db, TEST_SESSION).map((record) => record.seq)).toEqual([1])
    db.close()
  })

  it("passes with the planner it was given, and keeps the one it has", async () => {
    const db = await memoryStore()
    const session = createSession({ db, info: INFO, counter, now: fixedClock.now(), defersRecords: false })
    expect(session.planner).toBeNull()
    const planner = createHistoryPlanner({ db, sessionId: TEST_SESSION, counter, policy: "default" })
    const foldGains = vi.spyOn(planner, "foldGains")
    session.usePlanner(planner)
    session.usePlanner(planner)
    expect(session.planner).toBe(planner)
    session.pass(input(turns(1)))
    expect(foldGains).toHaveBeenCalledTimes(1)
    expect(() => session.usePlanner(createHistoryPlanner({ db, sessionId: TEST_SESSION, counter, policy: "default" }))).toThrow("already")
    db.close()
  })

  it("passes no more once forgotten, and drops what it owed", async () => {
    const db = await memoryStore()
    const session = createSession({ db, info: INFO, counter, now: fixedClock.now(), defersRecords: true })
    session.pass(input(turns(1)))
    session.forget()
    expect(session.owed.record).toBeNull()
    expect(() => session.pass(input(turns(2)))).toThrow("forgotten")
    expect(session.settle()).toBe(false)
    expect(listPasses(db, TEST_SESSION)).toEqual([])
    db.close()
  })
})

describe("createSessionRegistry", () => {
  it("holds one session per id, and forgetting it drops that one object (the next use loads it afresh)", async () => {
    const db = await memoryStore()
    const registry = createSessionRegistry({ db, now: fixedClock.now, defersRecords: true })
    const session = registry.sessionFor(INFO, counter)
    expect(registry.sessionFor(INFO, counter)).toBe(session)
    expect(registry.stateFor(INFO, counter)).toBe(session.state)
    session.pass(input(turns(1)))
    registry.forget(TEST_SESSION)
    expect(registry.held(TEST_SESSION)).toBeUndefined()
    const reloaded = registry.sessionFor(INFO, counter)
    expect(reloaded).not.toBe(session)
    // The forgotten session's owed record went with it: the store numbers passes from what it holds.
    expect(reloaded.state.nextPass).toBe(1)
    db.close()
  })
})
