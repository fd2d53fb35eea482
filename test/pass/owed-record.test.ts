import { describe, expect, it } from "vitest"
import { createOwedRecord, recordStored, type OwedRecord } from "../../src/pass/owed-record.js"
import { runPass } from "../../src/pass/run-pass.js"
import type { SessionState } from "../../src/session/session-state.js"
import type { Database } from "../../src/store/driver.js"
import { listPasses, recordPass } from "../../src/store/pass-repository.js"
import type { HostMessage } from "../../src/transcript/host-message.js"
import { assistantMessage, fixedClock, freshCopy, memoryStore, ROOMY_WINDOW, sessionState, text, TEST_SESSION, userMessage } from "../helpers/host-messages.js"
import { tokCounter as counter, toks } from "../helpers/pure-session.js"
import { passCachesOf } from "../helpers/pass-caches-of.js"

const turns = (count: number): HostMessage[] =>
  Array.from({ length: count }, (_, index) => [
    userMessage({ id: `msg_u${index}`, created: 10 + index * 10, parts: [text(`prt_u${index}`, `step ${index}: keep parseItem${index} exported ${toks(3 + index)}`)] }),
    assistantMessage({ id: `msg_a${index}`, created: 11 + index * 10, parts: [text(`prt_a${index}`, `done with step ${index} ${toks(2)}`)] }),
  ]).flat()

/** Stores the owed record as a session's settle does (session.ts), in a transaction of its own. */
function storeOwedRecord(db: Database, owed: OwedRecord): boolean {
  const record = owed.record
  if (record === null) return false
  db.transaction(() => recordPass(db, record))
  recordStored(owed, record)
  return true
}

function pass(db: Database, state: SessionState, messages: HostMessage[], owed: OwedRecord | null) {
  return runPass({ db, state, caches: passCachesOf(state), messages: freshCopy(messages), counter, clock: fixedClock, trigger: "transform", tagsVisible: true, window: ROOMY_WINDOW, fixedTokens: 0, now: fixedClock.now(), smartDrops: false, ...(owed ? { owed } : {}) })
}

describe("runPass with an owed record", () => {
  it("leaves a quiet pass's record owed, and stores the very record the pass would have committed", async () => {
    const deferred = await memoryStore()
    const direct = await memoryStore()
    const deferredState = sessionState({ db: deferred, counter })
    const directState = sessionState({ db: direct, counter })
    const owed = createOwedRecord()
    for (const count of [1, 2, 2, 3]) {
      pass(deferred, deferredState, turns(count), owed)
      expect(listPasses(deferred, TEST_SESSION, 100).map((record) => record.seq)).not.toContain(deferredState.nextPass - 1)
      expect(owed.record?.seq).toBe(deferredState.nextPass - 1)
      expect(storeOwedRecord(deferred, owed)).toBe(true)
      expect(owed.record).toBeNull()
      pass(direct, directState, turns(count), null)
    }
    expect(storeOwedRecord(deferred, owed)).toBe(false)
    expect(listPasses(deferred, TEST_SESSION, 100)).toEqual(listPasses(direct, TEST_SESSION, 100))
    deferred.close()
    direct.close()
  })

  it("commits an owed record before its own when the session still owes one, in one transaction", async () => {
    const db = await memoryStore()
    const state = sessionState({ db, counter })
    const owed = createOwedRecord()
    pass(db, state, turns(1), owed)
    pass(db, state, turns(2), owed)
    expect(listPasses(db, TEST_SESSION).map((record) => record.seq)).toEqual([2, 1])
    expect(owed.record).toBeNull()
    // A commit that fails writes neither (nothing new to ingest: the commit is the pass's one write): the owed record
    // stays owed, and the failed pass's number is not reused.
    pass(db, state, turns(2), owed)
    const transaction = db.transaction
    db.transaction = () => {
      throw new Error("store gone")
    }
    expect(() => pass(db, state, turns(2), owed)).toThrow("store gone")
    db.transaction = transaction
    expect(owed.record?.seq).toBe(3)
    expect(listPasses(db, TEST_SESSION).map((record) => record.seq)).toEqual([2, 1])
    pass(db, state, turns(3), owed)
    expect(listPasses(db, TEST_SESSION).map((record) => record.seq)).toEqual([5, 3, 2, 1])
    db.close()
  })
})
