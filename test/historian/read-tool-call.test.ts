import { describe, expect, it } from "vitest"
import { readToolCall } from "../../src/historian/read-tool-call.js"
import type { HostToolPart } from "../../src/transcript/host-message.js"
import { assistantMessage, completed, tool } from "../helpers/host-messages.js"

/** The failing test run of fixtures/opencode-session (message 5), as OpenCode records it. */
const OUTPUT =
  "node:internal/modules/run_main:123\n    triggerUncaughtException(\n    ^\n\n" +
  "AssertionError [ERR_ASSERTION]: Expected values to be strictly equal:\n+ actual - expected\n\n+ 'Hello-World'\n" +
  "- 'hello-world'\n    at file:///home/user/slugify-demo/test/slugify.test.js:4:8\n"

const testRun = (compacted?: number): HostToolPart => {
  const state = completed({ command: "node test/slugify.test.js" }, OUTPUT)
  if (state.status !== "completed") throw new Error("expected a completed state")
  const time = compacted === undefined ? state.time : { ...state.time, compacted }
  const [part] = assistantMessage({ id: "m5", parts: [tool("t5", "bash", { ...state, time })] }).parts
  if (part?.type !== "tool") throw new Error("expected a tool part")
  return part
}

describe("readToolCall", () => {
  it("reads the error lines and locations of an output the model read", () => {
    const reading = readToolCall(testRun())
    expect(reading.status).toBe("error")
    expect(reading.errorLines.join("\n")).toContain("Expected values to be strictly equal")
  })

  it("reads nothing from an output OpenCode pruned: the model was sent only the marker", () => {
    const reading = readToolCall(testRun(1_795_981_922_000))
    expect(reading).toMatchObject({ status: "ok", errorLines: [], commits: [], constraints: [] })
    expect(JSON.stringify(reading)).not.toContain("strictly equal")
    expect(reading.summary).toBe("bash node test/slugify.test.js")
  })
})
