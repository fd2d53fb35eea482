import { describe, expect, it } from "vitest"
import { isStatusRequest, STATUS_MARKER, statusExchangeIds } from "../../src/plugin/status-command.js"
import { assistantMessage, completed, text, tool, userMessage } from "../helpers/host-messages.js"

describe("statusExchangeIds", () => {
  it("names each /ctx-status request and the replies whose parent it is, nothing else", () => {
    const messages = [
      userMessage({ id: "u1", parts: [text("u1t", "fix the parser")] }),
      assistantMessage({ id: "a1", parentID: "u1", parts: [text("a1t", "on it")] }),
      userMessage({ id: "u2", parts: [text("u2t", `${STATUS_MARKER}\nreport`)] }),
      assistantMessage({ id: "a2", parentID: "u2", parts: [text("a2t", "the report")] }),
      // The marker counts only at the start of a user message's first text part.
      userMessage({ id: "u3", parts: [text("u3t", `see ${STATUS_MARKER}`), text("u3u", STATUS_MARKER)] }),
      assistantMessage({ id: "a3", parentID: "u3", parts: [text("a3t", STATUS_MARKER)] }),
    ]
    expect([...statusExchangeIds(messages)].sort()).toEqual(["a2", "u2"])
    expect(statusExchangeIds(messages.slice(0, 2)).size).toBe(0)
  })

  it("reads a request's first text part, after any other part", () => {
    const request = userMessage({ id: "u4", parts: [tool("u4r", "read", completed({ filePath: "a.ts" }, "x")), text("u4t", STATUS_MARKER)] })
    expect(isStatusRequest(request)).toBe(true)
    expect(isStatusRequest(userMessage({ id: "u5", parts: [] }))).toBe(false)
  })
})
