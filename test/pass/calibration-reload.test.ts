import { describe, expect, it } from "vitest"
import { defaultConfig } from "../../src/config/schema.js"
import { runPass } from "../../src/pass/run-pass.js"
import type { SessionState } from "../../src/session/session-state.js"
import { fixedWindow } from "../../src/pressure/model-window.js"
import type { Database } from "../../src/store/driver.js"
import { statement } from "../../src/store/statements.js"
import type { HostMessage } from "../../src/transcript/host-message.js"
import { assistantMessage, fixedClock, memoryStore, sessionState, text, userMessage } from "../helpers/host-messages.js"
import { tokCounter, toks } from "../helpers/pure-session.js"
import { passCachesOf } from "../helpers/pass-caches-of.js"

const WINDOW = fixedWindow({ usableTokens: 100_000, config: defaultConfig() })
const BASE = 1_800_000_000_000

function pass(db: Database, state: SessionState, messages: HostMessage[], now: number, fixedTokens = 0) {
  return runPass({
    db,
    state,
    caches: passCachesOf(state),
    messages: structuredClone(messages),
    counter: tokCounter,
    clock: { ...fixedClock, now: () => now },
    trigger: "transform",
    tagsVisible: true,
    window: WINDOW,
    fixedTokens,
    now,
    smartDrops: false,
  })
}

describe("runPass calibration across a restart", () => {
  it("calibrates the first report after the process restarted against the stored estimate of its request", async () => {
    const db = await memoryStore()
    const first = sessionState({ db, counter: tokCounter })
    const messages: HostMessage[] = [userMessage({ id: "u1", created: BASE, parts: [text("p1", toks(1_000))] })]
    const sent = pass(db, first, messages, BASE + 10)
    expect(sent.usageAfter).toBe(1_000)

    // The process restarts; OpenCode created the reply just before that request and recorded 4,000 prompt tokens.
    const reply = assistantMessage({ id: "a1", created: BASE + 5, parts: [text("t1", toks(100))] })
    const reported = { ...reply, info: { ...reply.info, tokens: { input: 4_000, output: 100, reasoning: 0, cache: { read: 0, write: 0 } } } }
    const restarted = sessionState({ db, counter: tokCounter })
    expect(restarted.recentEstimates).toEqual([{ seq: sent.seq, startedAt: BASE + 10, estimate: 1_000, fixed: 0 }])
    const next = pass(db, restarted, [...messages, reported as HostMessage], BASE + 20)
    // 1,000 (u1) + 100 (a1) counted, plus the 3,000 the provider saw beyond our estimate for the earlier request.
    expect(next.usageBefore).toBe(4_100)
    const tags = statement(db, "SELECT tag, created_pass FROM tags ORDER BY tag").all()
    expect(tags).toEqual([
      { tag: 1, created_pass: sent.seq },
      { tag: 2, created_pass: next.seq },
    ])
  })

  it("does not move the calibration when the fixed prompt's count changed after the request was sent", async () => {
    const db = await memoryStore()
    const state = sessionState({ db, counter: tokCounter })
    const messages: HostMessage[] = [userMessage({ id: "u1", created: BASE, parts: [text("p1", toks(1_000))] })]
    // The first pass of a process counts only the tool definitions (1,000): the system prompt's hook runs after it.
    const sent = pass(db, state, messages, BASE + 10, 1_000)
    expect(sent.usageAfter).toBe(2_000)
    // The request carried the whole fixed prompt (3,000) and the provider's framing (2,000 we never count).
    const reply = assistantMessage({ id: "a1", created: BASE + 5, parts: [text("t1", toks(100))] })
    const reported = { ...reply, info: { ...reply.info, tokens: { input: 6_000, output: 100, reasoning: 0, cache: { read: 0, write: 0 } } } }
    // The next pass knows the system prompt too: 3,000 fixed.
    const next = pass(db, state, [...messages, reported as HostMessage], BASE + 20, 3_000)
    // 1,000 (u1) + 100 (a1) + 3,000 fixed + 2,000 framing; taking the gap against the sent 2,000 would say 8,100.
    expect(next.usageBefore).toBe(6_100)
  })

  it("does not calibrate against a stored pass whose record lacks the fixed prompt's count", async () => {
    const db = await memoryStore()
    const first = sessionState({ db, counter: tokCounter })
    const messages: HostMessage[] = [userMessage({ id: "u1", created: BASE, parts: [text("p1", toks(1_000))] })]
    pass(db, first, messages, BASE + 10)
    // A record written before the fixed part was kept apart: its estimate cannot be put on today's fixed count.
    statement(db, "UPDATE passes SET detail_json = json_remove(detail_json, '$.breakdown')").run([])
    const restarted = sessionState({ db, counter: tokCounter })
    expect(restarted.recentEstimates).toEqual([])
    const reply = assistantMessage({ id: "a1", created: BASE + 5, parts: [text("t1", toks(100))] })
    const reported = { ...reply, info: { ...reply.info, tokens: { input: 4_000, output: 100, reasoning: 0, cache: { read: 0, write: 0 } } } }
    // Uncalibrated: our own count, 1,000 (u1) + 100 (a1).
    expect(pass(db, restarted, [...messages, reported as HostMessage], BASE + 20).usageBefore).toBe(1_100)
  })
})
