import { describe, expect, it } from "vitest"
import type { ChatMessage, ChatRequest } from "../../e2e/harness/mock-model-server.js"
import { liveReadTags, nextStep, piScript, turnEnds, turnPrompt } from "../../../bench/e2e/pi-script.js"
import { piScenarios, stepFile } from "../../../bench/e2e/pi-scenarios.js"

/** Finished reads of files 1..count, tagged 2, 4, 6, … */
const reads = (count: number): ChatMessage[] =>
  Array.from({ length: count }, (_, index) => index + 1).flatMap((step) => [
    { role: "assistant", content: null, tool_calls: [{ id: `c${step}`, function: { name: "read", arguments: JSON.stringify({ path: stepFile(step) }) } }] },
    { role: "tool", tool_call_id: `c${step}`, content: `§${step * 2}§ S${step}-BEGIN text` },
  ])
const request = (count: number, extra = ""): ChatRequest => ({
  model: "mock-model",
  messages: [{ role: "system", content: `S${extra}` }, { role: "user", content: "go" }, ...reads(count)],
})
const [small, large] = piScenarios()

describe("piScenarios", () => {
  it("has a 32k and a 200k scenario, the 200k one reading past Pi's compaction point", () => {
    expect(small).toMatchObject({ id: "32k", contextWindow: 32_000, steps: 24 })
    expect(large?.id).toBe("200k")
    // Pi compacts past the window less its 16,384-token reserve.
    expect((large?.steps ?? 0) * (large?.fileTokens ?? 0)).toBeGreaterThan(200_000 - 16_384)
    expect(piScenarios({ only: "200k", steps32k: "12" }).map((scenario) => scenario.id)).toEqual(["200k"])
    expect(piScenarios({ steps32k: "12" })[0]?.steps).toBe(12)
    expect(() => piScenarios({ only: "64k" })).toThrow(/unknown scenario 64k/)
    expect(piScenarios({ reads200k: "60x4000" })[1]).toMatchObject({ steps: 60, fileTokens: 4_000 })
    expect(() => piScenarios({ reads200k: "60" })).toThrow(/<count>x<tokens>/)
  })
})

describe("the Pi bench's agent", () => {
  it("reads the next file after the newest read and sees the finished reads' tags", () => {
    expect(nextStep(request(0))).toBe(1)
    expect(nextStep(request(6))).toBe(7)
    expect(nextStep(request(100))).toBe(101)
    expect(liveReadTags(request(4))).toEqual([2, 4, 6, 8])
  })

  it("cooperative and batched, drops all but the newest three reads beside the read every six steps", () => {
    if (!small) throw new Error("no 32k scenario")
    const { script } = piScript({ scenario: small, cooperative: true, style: "batched" })
    expect(script(request(5))).toMatchObject({ kind: "tool", name: "read", args: { path: "s06.txt" } })
    expect(script(request(6))).toMatchObject({
      kind: "tools",
      calls: [{ name: "ctx_reduce", args: { drop: "2,4,6" } }, { name: "read", args: { path: "s07.txt" } }],
    })
    const { script: passive } = piScript({ scenario: small, cooperative: false, style: "batched" })
    expect(passive(request(6))).toMatchObject({ kind: "tool", name: "read" })
    expect(passive(request(24))).toMatchObject({ kind: "text", text: "THREE-WAYS-DONE" })
  })

  it("splits the 200k session into user turns of 20 reads and answers text at each turn's end", () => {
    if (!small || !large) throw new Error("no scenarios")
    expect(turnEnds(small)).toEqual([24])
    expect(turnPrompt(24, small)).toBe("Read s01.txt to the last file, one at a time.")
    expect(turnEnds(large)).toEqual([20, 40, 60, 80, 100, 120, 140])
    expect(turnPrompt(40, large)).toBe("Read s21.txt to s40.txt, one at a time.")
    const agent = piScript({ scenario: large, cooperative: true, style: "batched" })
    agent.startTurn(20)
    expect(agent.script(request(20))).toMatchObject({ kind: "text", text: "TURN-DONE" })
    agent.startTurn(40)
    expect(agent.script(request(20))).toMatchObject({ kind: "tool", name: "read", args: { path: "s21.txt" } })
    agent.startTurn(140)
    expect(agent.script(request(140))).toMatchObject({ kind: "text", text: "THREE-WAYS-DONE" })
  })

  it("refuses a prompt over the window as an overflow", () => {
    if (!small) throw new Error("no 32k scenario")
    const { script } = piScript({ scenario: small, cooperative: false, style: "batched" })
    expect(script(request(1, "x".repeat(4 * 33_000)))).toMatchObject({ kind: "overflow", contextWindow: 32_000 })
  })
})
