import { describe, expect, it } from "vitest"
import { runningTurn } from "../../src/session/running-turn.js"
import { assistantMessage, reasoning, text, userMessage } from "../helpers/host-messages.js"

describe("runningTurn", () => {
  it("is at a turn boundary when the newest message is the user's", () => {
    const messages = [
      userMessage({ id: "u1", parts: [text("u1t", "go")] }),
      assistantMessage({ id: "a1", parts: [reasoning("a1r", "think"), text("a1t", "done")] }),
      userMessage({ id: "u2", parts: [text("u2t", "next")] }),
    ]
    expect(runningTurn(messages)).toEqual({ fromIndex: 2, open: false, reasoning: false })
  })

  it("is open while assistant steps follow the newest user message, and sees their reasoning", () => {
    const messages = [
      userMessage({ id: "u1", parts: [text("u1t", "go")] }),
      assistantMessage({ id: "a1", parts: [reasoning("a1r", "think"), text("a1t", "done")] }),
      userMessage({ id: "u2", parts: [text("u2t", "next")] }),
      assistantMessage({ id: "a2", parts: [text("a2t", "reading")] }),
    ]
    expect(runningTurn(messages)).toEqual({ fromIndex: 2, open: true, reasoning: false })
    messages.push(assistantMessage({ id: "a3", parts: [reasoning("a3r", "")] }))
    expect(runningTurn(messages)).toEqual({ fromIndex: 2, open: true, reasoning: true })
  })

  it("takes a list without a user message as one open turn, and an empty list as none", () => {
    expect(runningTurn([assistantMessage({ id: "a1", parts: [text("a1t", "x")] })])).toEqual({ fromIndex: 0, open: true, reasoning: false })
    expect(runningTurn([])).toEqual({ fromIndex: 0, open: false, reasoning: false })
  })
})
