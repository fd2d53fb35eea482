import { describe, expect, it } from "vitest"
import { REDUCE_GUIDANCE, REDUCE_TOOL_DESCRIPTION } from "../../src/reduce/agent-texts.js"
import { REDUCE_ALONGSIDE, REDUCE_NEVER_ALONE } from "../../src/reduce/reduce-timing.js"

describe("REDUCE_GUIDANCE", () => {
  it("tells the agent to call ctx_reduce in the same response as its next tool call, never alone, and why", () => {
    const text = REDUCE_GUIDANCE.replaceAll("\n", " ")
    expect(text).toContain(
      "Call ctx_reduce in the same response as your next real tool call (a read, an edit, a command), never on its " +
        "own: a ctx_reduce call on its own costs a whole extra model request.",
    )
  })
})

describe("REDUCE_TOOL_DESCRIPTION", () => {
  it("says the same as the guidance about when to call", () => {
    expect(REDUCE_TOOL_DESCRIPTION).toContain(`Call it ${REDUCE_ALONGSIDE} ${REDUCE_NEVER_ALONE}`)
    expect(REDUCE_TOOL_DESCRIPTION).toMatch(/in the same response as your next real tool call .*never on its own/)
  })
})
