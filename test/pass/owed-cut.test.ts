import { afterEach, describe, expect, it } from "vitest"
import { defaultConfig } from "../../src/config/schema.js"
import { owedCut, writeCut, type CutWriter, type OwedCut } from "../../src/pass/owed-cut.js"
import { runPass } from "../../src/pass/run-pass.js"
import { fixedWindow } from "../../src/pressure/model-window.js"
import { buildLiveView } from "../../src/session/live-view.js"
import { ALL_RECOGNIZERS } from "../../src/session/recognizers.js"
import type { SessionState } from "../../src/session/session-state.js"
import { listCompartmentOutlines, type CompartmentOutline } from "../../src/store/compartment-repository.js"
import type { Database } from "../../src/store/driver.js"
import type { HostMessage } from "../../src/transcript/host-message.js"
import {
  assistantMessage,
  completed,
  fillerWords,
  fixedClock,
  freshCopy,
  memoryStore,
  sessionState,
  text,
  tool,
  userMessage,
  wordCounter,
} from "../helpers/host-messages.js"
import { passCachesOf } from "../helpers/pass-caches-of.js"

/** Four user turns, each a request and an answer with a decision and a read: settled, they cut into episodes. */
function turns(): HostMessage[] {
  return [1, 2, 3, 4].flatMap((index) => [
    userMessage({ id: `u${index}`, created: 10_000 + index * 100, parts: [text(`u${index}t`, `Update src/mod${index}.ts next. Never remove parseItem${index}.`)] }),
    assistantMessage({
      id: `a${index}`,
      created: 10_001 + index * 100,
      parts: [
        text(`a${index}t`, `I'll use a lookup table in src/mod${index}.ts because it keeps the API stable.`),
        tool(`a${index}r`, "read", completed({ filePath: `src/mod${index}.ts` }, fillerWords(300))),
      ],
    }),
  ])
}

const opened: Database[] = []
afterEach(() => {
  for (const db of opened.splice(0)) db.close()
})

/** A session that ingested `turns()` (a window too large to cut anything), and what its settled messages owe. */
async function owedSession(): Promise<{ db: Database; state: SessionState; writer: CutWriter; owed: OwedCut }> {
  const db = await memoryStore()
  opened.push(db)
  const state = sessionState({ db, counter: wordCounter })
  const messages = turns()
  runPass({
    db,
    state,
    caches: passCachesOf(state),
    messages: freshCopy(messages),
    counter: wordCounter,
    clock: fixedClock,
    trigger: "transform",
    tagsVisible: true,
    window: fixedWindow({ usableTokens: 1_000_000, config: { ...defaultConfig(), protected_tokens: 1_000_000 } }),
    fixedTokens: 0,
    now: 20_000,
    smartDrops: false,
  })
  const view = buildLiveView({ messages, state, protectedTokens: 300 })
  const owed = owedCut({ messages, view, state, pass: 2, now: 20_001, known: [] })
  if (owed === null) throw new Error("the settled turns owe no cut")
  const writer = { db, sessionId: state.sessionId, counter: wordCounter, recognizers: ALL_RECOGNIZERS, pinPatterns: [] }
  return { db, state, writer, owed }
}

describe("writeCut", () => {
  it("appends to the known compartments what the store lists of those it wrote", async () => {
    const { db, state, writer, owed } = await owedSession()
    expect(owed.episodes.length).toBeGreaterThan(1)
    const known: CompartmentOutline[] = []
    writeCut(writer, owed, known)
    const stored = listCompartmentOutlines(db, state.sessionId)
    expect(stored.map((compartment) => compartment.seq)).toEqual(owed.episodes.map((_, index) => index + 1))
    expect(known).toEqual(stored)
  })

  it("appends nothing when its transaction fails after inserting some of the compartments", async () => {
    const { db, state, writer, owed } = await owedSession()
    writeCut(writer, owed, [])
    // The second compartment stays stored: writing the cut again inserts the first, then fails on the second's seq.
    db.prepare("DELETE FROM compartments WHERE session_id = ? AND seq = 1").run([state.sessionId])
    const known: CompartmentOutline[] = []
    expect(() => writeCut(writer, owed, known)).toThrow()
    expect(known).toEqual([])
    expect(listCompartmentOutlines(db, state.sessionId).map((compartment) => compartment.seq)).not.toContain(1)
  })
})
