import { describe, expect, it } from "vitest"
import { lastFoldPass } from "../../src/pass/decide-work.js"
import { emptySessionState, type SessionState } from "../../src/session/session-state.js"

/** A session whose passes start at 41 (a replay into a store that held an earlier run), with this applied state. */
function session(applied: Partial<SessionState["applied"]>): SessionState {
  const state = emptySessionState("s1")
  return { ...state, firstPass: 41, applied: { ...state.applied, ...applied } }
}

const HISTORY = { foldedThroughSeq: 8, text: "<session-history>…", tokens: 40 }

describe("lastFoldPass", () => {
  it("is the pass before the session's first while nothing is folded, whatever executed since", () => {
    expect(lastFoldPass(session({ lastExecutePass: 50 }))).toBe(40)
  })

  it("is the pass the applied history records, not a later execute that only landed drops", () => {
    expect(lastFoldPass(session({ lastExecutePass: 60, history: { ...HISTORY, foldedAtPass: 52 } }))).toBe(52)
  })

  it("is the last execute pass for a history stored before folds recorded their pass", () => {
    expect(lastFoldPass(session({ lastExecutePass: 60, history: HISTORY }))).toBe(60)
  })
})
