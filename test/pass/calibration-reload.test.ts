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

const WINDOW = fixedWindow({ usableTokens: 100_000, config: defaultConfig() })
const BASE = 1_800_000_000_000

function pass(db: Database, state: SessionState, messages: HostMessage[], now: number) {
  return runPass({
    db,
    state,
    messages: structuredClone(messages),
    counter: tokCounter,
    clock: { ...fixedClock, now: () => now },
    trigger: "transform",
    tagsVisible: true,
    window: WINDOW,
    fixedTokens: 0,
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
    expect(restarted.recentEstimates).toEqual([{ seq: sent.seq, startedAt: BASE + 10, estimate: 1_000 }])
    const next = pass(db, restarted, [...messages, reported as HostMessage], BASE + 20)
    // 1,000 (u1) + 100 (a1) counted, plus the 3,000 the provider saw beyond our estimate for the earlier request.
    expect(next.usageBefore).toBe(4_100)
    const tags = statement(db, "SELECT tag, created_pass FROM tags ORDER BY tag").all()
    expect(tags).toEqual([
      { tag: 1, created_pass: sent.seq },
      { tag: 2, created_pass: next.seq },
    ])
  })
})
