import { describe, expect, it } from "vitest"
import { REASONING_RULE_IDS, REASONING_RULES, reasoningApi, reasoningRuleById, reasoningRuleFor } from "../../src/session/reasoning-rules.js"

describe("REASONING_RULES", () => {
  it("has one row per rule id, each naming its source, and ends with the rule for everything else", () => {
    expect(REASONING_RULES.map((rule) => rule.id)).toEqual([...REASONING_RULE_IDS])
    for (const rule of REASONING_RULES.slice(0, -1)) expect(rule.source).toMatch(/^https:\/\//)
    expect(REASONING_RULES.at(-1)?.id).toBe("none")
  })

  it("puts the prefix check only on rows whose provider signs reasoning and loses it after a prefix change", () => {
    for (const rule of REASONING_RULES) {
      if (rule.prefixCheck) expect(rule.signed && rule.keepsPrefix).toBe(true)
    }
  })
})

describe("reasoningApi", () => {
  it.each([
    [{ providerID: "anthropic", modelID: "claude-opus-5-5" }, "anthropic-messages"],
    [{ providerID: "mine", modelID: "x", hostApi: "@ai-sdk/anthropic" }, "anthropic-messages"],
    [{ providerID: "amazon-bedrock", modelID: "anthropic.claude-fable-5-1-v1:0" }, "anthropic-messages"],
    [{ providerID: "google-vertex-anthropic", modelID: "claude-sonnet-5-5@20261001" }, "anthropic-messages"],
    [{ providerID: "openai", modelID: "gpt-5.4" }, "openai-responses"],
    [{ providerID: "pi-openai", modelID: "gpt-5.4", hostApi: "openai-responses" }, "openai-responses"],
    [{ providerID: "local", modelID: "gpt-5.4", hostApi: "@ai-sdk/openai-compatible" }, "other"],
    [{ providerID: "pi", modelID: "gemini-3-flash", hostApi: "google-generative-ai" }, "google-gemini"],
    [{ providerID: "google", modelID: "gemini-3-pro" }, "google-gemini"],
    [{ providerID: "openrouter", modelID: "anthropic/claude-opus-5-5" }, "other"],
  ])("reads %j as %s", (model, api) => {
    expect(reasoningApi(model)).toBe(api)
  })
})

describe("reasoningRuleFor", () => {
  it.each([
    ["anthropic-messages", "claude-fable-5-1", "anthropic-prefix-check"],
    ["anthropic-messages", "claude-mythos-5-2", "anthropic-prefix-check"],
    ["anthropic-messages", "claude-opus-5-5", "anthropic-prefix-check"],
    ["anthropic-messages", "anthropic.claude-sonnet-5-5-v1:0", "anthropic-prefix-check"],
    ["anthropic-messages", "claude-haiku-5.5", "anthropic-prefix-check"],
    ["anthropic-messages", "claude-opus-5", "anthropic-thinking"],
    ["anthropic-messages", "claude-sonnet-4-6", "anthropic-thinking"],
    ["openai-responses", "gpt-5.4", "openai-responses-reasoning"],
    ["google-gemini", "gemini-3-flash", "gemini-thought-signatures"],
    ["google-gemini", "gemini-2.5-pro", "none"],
    ["other", "claude-opus-5-5", "none"],
  ] as const)("gives %s %s the %s rule", (api, model, id) => {
    expect(reasoningRuleFor(api, model).id).toBe(id)
  })

  it("finds every row by its id", () => {
    for (const id of REASONING_RULE_IDS) expect(reasoningRuleById(id).id).toBe(id)
  })
})
