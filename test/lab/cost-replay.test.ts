import { describe, expect, it } from "vitest"
import { defaultConfig } from "../../src/config/schema.js"
import { costReplay } from "../../src/lab/cost-replay.js"
import { pluginRequestTokens } from "../../src/lab/plugin-request-tokens.js"
import { AGENT_TOOL_TEXTS, REDUCE_GUIDANCE } from "../../src/reduce/agent-texts.js"
import { createTokenCounterPool } from "../../src/tokens/tiktoken-counter.js"
import { readTranscript } from "../../src/transcript/read-transcript.js"
import { tracePath } from "../transcript/trace-path.js"

const counter = createTokenCounterPool().counterFor("o200k_base")

describe("costReplay", () => {
  it("adds the plugin's request tokens to every call: uncached on the first, cached after it", async () => {
    const options = {
      transcript: readTranscript(tracePath("sweagent-gpt4-pydicom-1458.traj")),
      counter,
      config: defaultConfig(),
      window: 1_000_000,
      policy: "default" as const,
      tagsVisible: true,
    }
    const bare = await costReplay(options)
    const carried = await costReplay({ ...options, requestTokens: 500 })
    const calls = bare.cost.calls
    expect(calls).toBeGreaterThan(2)
    expect(bare.requestTokens).toBe(0)
    expect(carried.requestTokens).toBe(500)
    expect(carried.cost.calls).toBe(calls)
    expect(carried.cost.promptTokens).toBe(bare.cost.promptTokens + 500 * calls)
    expect(carried.cost.uncachedTokens).toBe(bare.cost.uncachedTokens + 500)
    expect(carried.cost.cachedTokens).toBe(bare.cost.cachedTokens + 500 * (calls - 1))
    expect(carried.cost.costTokens).toBeGreaterThan(bare.cost.costTokens)
  })
})

describe("pluginRequestTokens", () => {
  it("counts the guidance and every tool's name, description and argument, with the schema around them", () => {
    const texts = [REDUCE_GUIDANCE, ...AGENT_TOOL_TEXTS.flatMap((tool) => [tool.name, tool.description, tool.argument.name, tool.argument.description])]
    const bare = texts.reduce((sum, text) => sum + counter.count(text), 0)
    const tokens = pluginRequestTokens(counter)
    expect(tokens).toBeGreaterThan(bare)
    // The schema's keys and quotes: a few dozen tokens a tool, not more.
    expect(tokens).toBeLessThan(bare + 40 * AGENT_TOOL_TEXTS.length)
  })
})
