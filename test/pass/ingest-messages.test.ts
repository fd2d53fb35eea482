import { describe, expect, it } from "vitest"
import { ingestMessages, unstoredTail } from "../../src/pass/ingest-messages.js"
import { countSessionRows } from "../../src/store/raw-repository.js"
import {
  assistantMessage,
  completed,
  memoryStore,
  running,
  sessionState,
  text,
  tool,
  TEST_SESSION,
  userMessage,
  wordCounter,
} from "../helpers/host-messages.js"

const ask = (id: string) => userMessage({ id, parts: [text(`${id}_t`, `question ${id}`)] })
const answer = (id: string) => assistantMessage({ id, parts: [text(`${id}_t`, `answer ${id}`)] })

describe("ingestMessages", () => {
  it("stores new messages outside a pass and brings the state in step", async () => {
    const db = await memoryStore()
    const state = sessionState({ db, counter: wordCounter })
    const plan = ingestMessages({ db, state, messages: [ask("m1"), answer("m2")], counter: wordCounter, now: 5, pass: null })
    expect(plan.messages.map((message) => message.id)).toEqual(["m1", "m2"])
    expect(countSessionRows(db, TEST_SESSION)).toMatchObject({ messages: 2, parts: 2, tags: 2, passes: 0 })
    expect([...state.messageSeq.keys()]).toEqual(["m1", "m2"])
    expect(state.nextTag).toBe(3)
    db.close()
  })

  it("leaves the state as it was when the write fails", async () => {
    const db = await memoryStore()
    const state = sessionState({ db, counter: wordCounter })
    db.exec("DROP TABLE tags")
    expect(() => ingestMessages({ db, state, messages: [ask("m1")], counter: wordCounter, now: 5, pass: null })).toThrow()
    expect(state.messageSeq.size).toBe(0)
    expect(state.nextTag).toBe(1)
    db.close()
  })
})

describe("unstoredTail", () => {
  it("is every message when none is stored", async () => {
    const db = await memoryStore()
    const state = sessionState({ db, counter: wordCounter })
    const messages = [ask("m1"), answer("m2")]
    expect(unstoredTail(state, messages)).toEqual(messages)
    db.close()
  })

  it("starts at the newest stored message, so older unstored ones are never appended after it", async () => {
    const db = await memoryStore()
    const state = sessionState({ db, counter: wordCounter })
    ingestMessages({ db, state, messages: [ask("m3"), answer("m4")], counter: wordCounter, now: 5, pass: 1 })
    const listed = [ask("m1"), answer("m2"), ask("m3"), answer("m4"), ask("m5")]
    expect(unstoredTail(state, listed).map((message) => message.info.id)).toEqual(["m4", "m5"])
    db.close()
  })

  it("keeps the newest stored message in, so a part of it that became final is stored", async () => {
    const db = await memoryStore()
    const state = sessionState({ db, counter: wordCounter })
    const runningTool = assistantMessage({ id: "m2", parts: [tool("t1", "bash", running({ command: "make" }))] })
    ingestMessages({ db, state, messages: [ask("m1"), runningTool], counter: wordCounter, now: 5, pass: 1 })
    const finished = assistantMessage({ id: "m2", parts: [tool("t1", "bash", completed({ command: "make" }, "ok"))] })
    const tail = unstoredTail(state, [ask("m1"), finished])
    const plan = ingestMessages({ db, state, messages: tail, counter: wordCounter, now: 6, pass: null })
    expect(plan.parts.map((part) => [part.id, part.final])).toEqual([["t1", true]])
    db.close()
  })
})
