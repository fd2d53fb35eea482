import { afterEach, describe, expect, it } from "vitest"
import { defaultConfig } from "../../src/config/schema.js"
import { createHistoryPlanner, type HistoryPlanner } from "../../src/pass/history-planner.js"
import { runPass, type PassResult } from "../../src/pass/run-pass.js"
import type { SessionState } from "../../src/pass/session-state.js"
import { applyEdits } from "../../src/plugin/apply-edits.js"
import { drainMinimumTokens } from "../../src/pressure/drain-latch.js"
import { fixedWindow } from "../../src/pressure/model-window.js"
import type { Database } from "../../src/store/driver.js"
import type { HostMessage } from "../../src/transcript/host-message.js"
import {
  assistantMessage,
  completed,
  fixedClock,
  freshCopy,
  memoryStore,
  sessionState,
  text,
  tool,
  userMessage,
  wordCounter,
} from "../helpers/host-messages.js"

/**
 * The drain rule through real passes (sizes in words): a fixed prompt of 70% of a 40,000-word window keeps the session
 * in the execute band after the force pass that starts the drain, so every later turn brings a small compartment of
 * ready history (a 1% history budget keeps every compartment at its floor). A drain pass must free max(1,000, 2% of
 * the window) to be worth its cache rewrite.
 */
const WINDOW = fixedWindow({ usableTokens: 40_000, config: { ...defaultConfig(), protected_tokens: 50, history_budget: 1 } })
const FIXED = 28_000
const filler = (count: number): string => Array.from({ length: count }, (_, index) => `w${index % 50}`).join(" ")

/** One turn: a request and an answer with a decision and a read of `size` filler words. */
function turn(index: number, size: number): HostMessage[] {
  const created = 10_000 + index * 100
  return [
    userMessage({ id: `u${index}`, created, parts: [text(`u${index}t`, `Update src/mod${index}.ts next.`)] }),
    assistantMessage({
      id: `a${index}`,
      created: created + 1,
      parts: [
        text(`a${index}t`, `I'll use a lookup table in src/mod${index}.ts because it keeps the API stable.`),
        tool(`a${index}r`, "read", completed({ filePath: `src/mod${index}.ts` }, filler(size))),
      ],
    }),
  ]
}

const opened: Database[] = []
afterEach(() => {
  for (const db of opened.splice(0)) db.close()
})

describe("the drain rule", () => {
  it("executes a drain pass only when it frees the minimum; ready history that frees less waits", async () => {
    const db = await memoryStore()
    opened.push(db)
    const state: SessionState = sessionState({ db, counter: wordCounter })
    const planner: HistoryPlanner = createHistoryPlanner({ db, sessionId: state.sessionId, counter: wordCounter, policy: "default" })
    const pass = (messages: HostMessage[]): PassResult => {
      const rendered = freshCopy(messages)
      const newest = messages[messages.length - 1]
      const result = runPass({
        db,
        state,
        messages: rendered,
        counter: wordCounter,
        clock: fixedClock,
        trigger: "transform",
        tagsVisible: true,
        window: WINDOW,
        fixedTokens: FIXED,
        // One second after the newest message: the prompt cache is warm.
        now: (newest?.info.time.created ?? 0) + 1_000,
        smartDrops: false,
        history: planner,
      })
      applyEdits(rendered, result.edits)
      return result
    }
    const minimum = drainMinimumTokens(WINDOW.usableTokens)
    expect(minimum).toBe(1_000)

    let messages = [1, 2, 3, 4, 5].flatMap((index) => turn(index, 1_400))
    const first = pass(messages)
    expect([first.band, first.decision]).toEqual(["force", "execute"])
    expect(state.applied.drain.active).toBe(true)

    // The next turn settles turn 5 and its large read: folding it frees more than the minimum.
    messages = [...messages, ...turn(6, 60)]
    const settled = pass(messages)
    expect(settled).toMatchObject({ band: "execute", decision: "execute", reason: "drain" })
    expect(settled.usageBefore - settled.usageAfter).toBeGreaterThanOrEqual(minimum)
    // Small turns: each pass has a new compartment ready that frees a few dozen words (the defect executed each).
    const small = [7, 8].map((index) => {
      messages = [...messages, ...turn(index, 60)]
      return pass(messages)
    })
    for (const result of small) {
      expect(result).toMatchObject({ band: "execute", decision: "replay", reason: "drain-below-minimum", prefixChanged: false })
    }
    // A turn with a large read: while it is the newest it is protected, and what is ready still frees too little.
    messages = [...messages, ...turn(9, 1_500)]
    expect(pass(messages)).toMatchObject({ band: "execute", decision: "replay", reason: "drain-below-minimum" })
    // Once it is settled, folding it frees more than the minimum: one drain pass folds every waiting compartment.
    messages = [...messages, ...turn(10, 60)]
    const drain = pass(messages)
    expect(drain).toMatchObject({ decision: "execute", reason: "drain" })
    expect(drain.usageBefore - drain.usageAfter).toBeGreaterThanOrEqual(minimum)
  })
})
