import { describe, expect, it } from "vitest"
import { REDUCE_TOOL_DESCRIPTION } from "../../src/host/reduce-call.js"
import { REDUCE_GUIDANCE } from "../../src/host/reduce-guidance.js"
import { REDUCE_ALONGSIDE, REDUCE_ALONGSIDE_REASON } from "../../src/reduce/reduce-timing.js"

describe("REDUCE_GUIDANCE", () => {
  it("tells the agent to call ctx_reduce together with its next tool call, never alone, and why", () => {
    const text = REDUCE_GUIDANCE.replaceAll("\n", " ")
    expect(REDUCE_ALONGSIDE).toMatch(/together with your next tool call \(in the same response\), never on its own/)
    expect(text).toContain(`Call ctx_reduce ${REDUCE_ALONGSIDE}.`)
    expect(text).toContain(REDUCE_ALONGSIDE_REASON)
    expect(REDUCE_ALONGSIDE_REASON).toMatch(/costs a whole extra model request/)
  })
})

describe("REDUCE_TOOL_DESCRIPTION", () => {
  it("says the same as the guidance about when to call", () => {
    expect(REDUCE_TOOL_DESCRIPTION).toContain(`Call it ${REDUCE_ALONGSIDE}. ${REDUCE_ALONGSIDE_REASON}`)
  })
})
