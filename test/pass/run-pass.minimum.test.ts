import { afterEach, describe, expect, it } from "vitest"
import { defaultConfig } from "../../src/config/schema.js"
import { createHistoryPlanner, type HistoryPlanner } from "../../src/pass/history-planner.js"
import { runPass, type PassResult } from "../../src/pass/run-pass.js"
import type { SessionState } from "../../src/session/session-state.js"
import { applyEdits } from "../../src/session/apply-edits.js"
import { minimumFreedTokens } from "../../src/pressure/minimum-freed.js"
import { fixedWindow, type WindowSettings } from "../../src/pressure/model-window.js"
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

/**
 * What an execute pass must free to be worth its cache rewrite, through real passes (sizes in words): a drain pass,
 * or a pass at the threshold whose only opening work is ready history, executes only when it frees max(1,000, 2% of
 * the window); and the floors of the history yield to the ceiling only in the emergency band. A large
 * fixed prompt holds the session in the band under test; a 1% history budget keeps every compartment at its floor.
 */

/** One turn: a request and an answer with a decision (after `narrative`) and a read of `size` filler words. */
function turn(index: number, size: number, request = `Update src/mod${index}.ts next.`, narrative = ""): HostMessage[] {
  const created = 10_000 + index * 100
  return [
    userMessage({ id: `u${index}`, created, parts: [text(`u${index}t`, request)] }),
    assistantMessage({
      id: `a${index}`,
      created: created + 1,
      parts: [
        text(`a${index}t`, `${narrative}I'll use a lookup table in src/mod${index}.ts because it keeps the API stable.`),
        tool(`a${index}r`, "read", completed({ filePath: `src/mod${index}.ts` }, fillerWords(size))),
      ],
    }),
  ]
}

const opened: Database[] = []
afterEach(() => {
  for (const db of opened.splice(0)) db.close()
})

type Session = {
  state: SessionState
  planner: HistoryPlanner
  pass(messages: HostMessage[]): PassResult
  /** A new planner over the same store, as a restarted process has. */
  restart(): void
}

/** A fresh session whose passes run in `window` with a fixed prompt of `fixed` words, one second after the newest message. */
async function openSession(window: WindowSettings, fixed: number): Promise<Session> {
  const db = await memoryStore()
  opened.push(db)
  const state: SessionState = sessionState({ db, counter: wordCounter })
  const plannerOf = (): HistoryPlanner => createHistoryPlanner({ db, sessionId: state.sessionId, counter: wordCounter, policy: "default" })
  const session: Session = {
    state,
    planner: plannerOf(),
    restart() {
      session.planner = plannerOf()
    },
    pass(messages) {
      const rendered = freshCopy(messages)
      const newest = messages[messages.length - 1]
      const result = runPass({
        db,
        state,
        caches: passCachesOf(state),
        messages: rendered,
        counter: wordCounter,
        clock: fixedClock,
        trigger: "transform",
        tagsVisible: true,
        window,
        fixedTokens: fixed,
        // The prompt cache is warm.
        now: (newest?.info.time.created ?? 0) + 1_000,
        smartDrops: false,
        history: session.planner,
      })
      applyEdits(rendered, result.edits)
      return result
    },
  }
  return session
}

const WINDOW = fixedWindow({ usableTokens: 40_000, config: { ...defaultConfig(), protected_tokens: 50, history_budget: 1 } })

describe("the drain rule", () => {
  it("executes a drain pass only when it frees the minimum; ready history that frees less waits", async () => {
    // 70% fixed: after the force pass that starts the drain the session stays in the execute band.
    const session = await openSession(WINDOW, 28_000)
    const minimum = minimumFreedTokens(WINDOW.usableTokens)
    expect(minimum).toBe(1_000)

    let messages = [1, 2, 3, 4, 5].flatMap((index) => turn(index, 1_400))
    const first = session.pass(messages)
    expect([first.band, first.decision]).toEqual(["force", "execute"])
    expect(session.state.applied.drain.active).toBe(true)
    // The next turn settles turn 5 and its large read: folding it frees more than the minimum.
    messages = [...messages, ...turn(6, 60)]
    const settled = session.pass(messages)
    expect(settled).toMatchObject({ band: "execute", decision: "execute", reason: "drain" })
    expect(settled.usageBefore - settled.usageAfter).toBeGreaterThanOrEqual(minimum)
    // Small turns: each pass has a new compartment ready that frees a few dozen words (the defect executed each).
    const small = [7, 8].map((index) => {
      messages = [...messages, ...turn(index, 60)]
      return session.pass(messages)
    })
    for (const result of small) {
      expect(result).toMatchObject({ band: "execute", decision: "replay", reason: "drain-below-minimum", prefixChanged: false })
    }
    // A turn with a large read: while it is the newest it is protected, and what is ready still frees too little.
    messages = [...messages, ...turn(9, 1_500)]
    expect(session.pass(messages)).toMatchObject({ band: "execute", decision: "replay", reason: "drain-below-minimum" })
    // Once it is settled, folding it frees more than the minimum: one drain pass folds every waiting compartment.
    messages = [...messages, ...turn(10, 60)]
    const drain = session.pass(messages)
    expect(drain).toMatchObject({ decision: "execute", reason: "drain" })
    expect(drain.usageBefore - drain.usageAfter).toBeGreaterThanOrEqual(minimum)
  })
})

describe("the threshold rule", () => {
  it("executes at the threshold for ready history only when it frees the minimum", async () => {
    // 65% fixed: every pass is in the execute band, never in the force band (so no drain starts).
    const session = await openSession(WINDOW, 26_000)
    const minimum = minimumFreedTokens(WINDOW.usableTokens)
    let messages = [1, 2, 3].flatMap((index) => turn(index, 1_400))
    expect(session.pass(messages)).toMatchObject({ band: "execute", decision: "execute", reason: "threshold-work" })
    expect(session.state.applied.drain.active).toBe(false)
    // The next turn settles turn 3 and its large read: worth a rewrite.
    messages = [...messages, ...turn(4, 60)]
    const settled = session.pass(messages)
    expect(settled).toMatchObject({ band: "execute", decision: "execute", reason: "threshold-work" })
    expect(settled.usageBefore - settled.usageAfter).toBeGreaterThanOrEqual(minimum)
    // Small turns: a new small compartment is ready on every pass; none is worth a rewrite (the defect made each one).
    for (const index of [5, 6, 7]) {
      messages = [...messages, ...turn(index, 60)]
      expect(session.pass(messages)).toMatchObject({ band: "execute", decision: "replay", reason: "history-below-minimum", prefixChanged: false })
    }
  })
})

describe("floors and the ceiling", () => {
  /** A request the ledger cannot hold (its budget is ~1,300 words): condensed, it is in every tier of its episode. */
  const request = (index: number): string =>
    `In src/mod${index}.ts keep ${Array.from({ length: 36 }, (_, word) => `rule${index}x${word}`).join(" ")} exactly.`
  /** Narrative only FULL and DENSE carry: what folding frees beyond the floors. */
  const narrative =
    "First I looked around the repository layout and the fixtures. Then I went through the module list one by one. " +
    "After that I compared the two call sites side by side. "
  const turns = (from: number, to: number): HostMessage[] =>
    Array.from({ length: to - from + 1 }, (_, offset) => turn(from + offset, 10, request(from + offset), narrative)).flat()

  it.each([
    ["execute", 280],
    ["force", 320],
  ])("keeps the floors in the %s band even when they exceed the ceiling", async (band, count) => {
    const session = await openSession(WINDOW, 4_000)
    const result = session.pass(turns(1, count))
    expect([result.band, result.decision]).toEqual([band, "execute"])
    expect(session.planner.report()).toMatchObject({ floorViolations: 0, omittedCompartments: 0 })
    // The floors did exceed the ceiling: the pass lands over it rather than break one.
    expect(result.usageAfter).toBeGreaterThan(WINDOW.ceilingTokens)
  })

  it("gives history the room an emergency pass frees in the protected tail before any floor yields", async () => {
    // A 36,000-word read in the protected tail (not the newest message, so the emergency reclaim takes it).
    const window = fixedWindow({ usableTokens: 40_000, config: { ...defaultConfig(), protected_tokens: 36_100, history_budget: 1 } })
    const session = await openSession(window, 4_000)
    const messages = [
      ...turns(1, 20),
      ...turn(21, 36_000),
      userMessage({ id: "u22", created: 20_000, parts: [text("u22t", "Carry on.")] }),
    ]
    const result = session.pass(messages)
    expect([result.band, result.decision]).toEqual(["emergency", "execute"])
    expect(result.dropped).toContain(session.state.tagsByPart.get("a21r")?.tag)
    // The floors fit in what the pass leaves: none yields, nothing is omitted.
    expect(session.planner.report()).toMatchObject({ floorViolations: 0, omittedCompartments: 0 })
    expect((100 * result.usageAfter) / window.usableTokens).toBeLessThan(window.thresholdPercent)
  })

  it("lets the floors yield in the emergency band, so the pass lands under the threshold", async () => {
    const session = await openSession(WINDOW, 4_000)
    const result = session.pass(turns(1, 420))
    expect([result.band, result.decision]).toEqual(["emergency", "execute"])
    expect((100 * result.usageAfter) / WINDOW.usableTokens).toBeLessThan(WINDOW.thresholdPercent)
    expect(session.planner.report()?.floorViolations).toBeGreaterThan(0)
  })

  it.each([
    ["", false],
    [" (also after a restart)", true],
  ])("keeps what the floors yielded after the emergency: later passes neither bring it back nor grow the prompt%s", async (_name, restart) => {
    const session = await openSession(WINDOW, 4_000)
    let messages = turns(1, 420)
    session.pass(messages)
    const omitted = session.planner.report()?.omittedCompartments ?? 0
    expect(omitted).toBeGreaterThan(0)
    if (restart) session.restart()
    const later: PassResult[] = []
    for (let index = 421; index <= 470; index += 1) {
      messages = [...messages, ...turn(index, 10, request(index), narrative)]
      later.push(session.pass(messages))
    }
    // The session grows back into the execute band, and passes there execute once they free the minimum ...
    const executed = later.filter((result) => result.decision === "execute")
    expect(executed.length).toBeGreaterThan(0)
    // ... without bringing back what the emergency left out (it would not fit) or growing the prompt.
    for (const result of executed) expect(result.usageAfter).toBeLessThan(result.usageBefore)
    expect(session.planner.report()?.omittedCompartments).toBeGreaterThanOrEqual(omitted)
    // Nothing below its floor is new outside the emergency band.
    expect(later.every((result) => result.band !== "emergency")).toBe(true)
    expect(session.planner.report()?.newlyYielded).toBe(0)
  })
})
