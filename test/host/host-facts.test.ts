import { describe, expect, it } from "vitest"
import { createHostFacts } from "../../src/host/host-facts.js"
import type { TokenCounter } from "../../src/tokens/token-counter.js"
import { wordCounter } from "../helpers/host-messages.js"

/** A word counter that records what it was asked to count. */
function recordingCounter(): TokenCounter & { asked: string[] } {
  const asked: string[] = []
  return { encoding: "words", asked, count: (body) => (asked.push(body), wordCounter.count(body)) }
}

describe("createHostFacts", () => {
  it("remembers model limits per provider and model, ignoring an empty context", () => {
    const facts = createHostFacts()
    facts.rememberLimits("openai", "gpt-5", { context: 400_000, output: 128_000 })
    facts.rememberLimits("openai", "broken", { context: 0, output: 10 })
    expect(facts.limitsFor("openai", "gpt-5")).toEqual({ context: 400_000, output: 128_000 })
    expect(facts.limitsFor("azure", "gpt-5")).toBeNull()
    expect(facts.limitsFor("openai", "broken")).toBeNull()
  })

  it("counts the session's system prompt plus every tool definition as fixed tokens", () => {
    const facts = createHostFacts()
    facts.rememberSystem("s1", ["You are", "a coding agent."], wordCounter)
    facts.rememberSystem("s2", ["Short."], wordCounter)
    facts.rememberToolDefinition("read", "read Reads a file.", wordCounter)
    facts.rememberToolDefinition("bash", "bash Runs a command.", wordCounter)
    expect(facts.fixedTokens("s1")).toBe(5 + 4 + 4)
    expect(facts.fixedTokens("s2")).toBe(1 + 8)
    expect(facts.fixedTokens("unknown")).toBe(8)
  })

  it("counts each distinct system prompt and tool definition once, and the newest one counts", () => {
    const facts = createHostFacts()
    const counter = recordingCounter()
    facts.rememberSystem("s1", ["a b"], counter)
    facts.rememberSystem("s1", ["a b"], counter)
    facts.rememberToolDefinition("read", "read one", counter)
    facts.rememberToolDefinition("read", "read one", counter)
    facts.rememberToolDefinition("read", "read one two three", counter)
    expect(counter.asked).toEqual(["a b", "read one", "read one two three"])
    expect(facts.fixedTokens("s1")).toBe(2 + 4)
  })
})
