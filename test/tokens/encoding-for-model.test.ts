import { describe, expect, it } from "vitest"
import { encodingForModel, type TokenizerSettings } from "../../src/tokens/encoding-for-model.js"

const AUTO: TokenizerSettings = { encoding: "auto", models: {} }

describe("encodingForModel", () => {
  it.each([
    ["openai", "gpt-4o", "o200k_base"],
    ["openai", "gpt-4o-mini", "o200k_base"],
    ["openai", "gpt-4.1", "o200k_base"],
    ["openai", "gpt-4.1-nano", "o200k_base"],
    ["openai", "gpt-4.5-preview", "o200k_base"],
    ["openai", "gpt-5", "o200k_base"],
    ["openai", "gpt-5-codex", "o200k_base"],
    ["openai", "o1", "o200k_base"],
    ["openai", "o3-mini", "o200k_base"],
    ["openai", "o4-mini", "o200k_base"],
    ["openai", "chatgpt-4o-latest", "o200k_base"],
    ["openai", "codex-mini-latest", "o200k_base"],
    ["openai", "gpt-4", "cl100k_base"],
    ["openai", "gpt-4-turbo", "cl100k_base"],
    ["openai", "gpt-4-0613", "cl100k_base"],
    ["openai", "gpt-3.5-turbo", "cl100k_base"],
    ["azure", "gpt-35-turbo", "cl100k_base"],
    ["openai", "text-embedding-3-small", "cl100k_base"],
    ["anthropic", "claude-sonnet-4-5", "o200k_base"],
    ["google", "gemini-2.5-pro", "o200k_base"],
    ["openrouter", "openai/gpt-4o", "o200k_base"],
    ["openrouter", "openai/gpt-4", "cl100k_base"],
    ["openrouter", "openai/gpt-3.5-turbo", "cl100k_base"],
    ["openrouter", "anthropic/claude-sonnet-4.5", "o200k_base"],
    [undefined, "gpt-4", "cl100k_base"],
    [undefined, "GPT-4-Turbo", "cl100k_base"],
    ["ollama", "llama-4-maverick", "o200k_base"],
    [undefined, undefined, "o200k_base"],
    ["openai", "", "o200k_base"],
  ])("picks the encoding for %s / %s: %s", (providerID, modelID, expected) => {
    expect(encodingForModel({ providerID, modelID, settings: AUTO })).toBe(expected)
  })

  it.each(["o200k_base", "cl100k_base"] as const)("uses an explicit %s for every model", (encoding) => {
    const other = encoding === "o200k_base" ? "cl100k_base" : "o200k_base"
    const settings: TokenizerSettings = { encoding, models: { "openai/*": other } }
    for (const modelID of ["gpt-4o", "gpt-4", "claude-sonnet-4-5"]) {
      expect(encodingForModel({ providerID: "openai", modelID, settings })).toBe(encoding)
    }
  })

  it.each([
    [{ "anthropic/*": "cl100k_base" }, "anthropic", "claude-sonnet-4-5", "cl100k_base"],
    [{ "anthropic/*": "cl100k_base" }, "openai", "claude-sonnet-4-5", "o200k_base"],
    [{ "anthropic/*": "cl100k_base" }, undefined, "claude-sonnet-4-5", "o200k_base"],
    [{ "claude-*": "cl100k_base" }, "anthropic", "claude-sonnet-4-5", "cl100k_base"],
    [{ "gpt-4o": "cl100k_base" }, "openai", "gpt-4o", "cl100k_base"],
    [{ "gpt-4o": "cl100k_base" }, "openai", "gpt-4o-mini", "o200k_base"],
    [{ "o3.mini": "cl100k_base" }, "openai", "o3.mini", "cl100k_base"],
    [{ "o3.mini": "cl100k_base" }, "openai", "o3-mini", "o200k_base"],
    [{ "gpt-4.1+": "cl100k_base" }, "openai", "gpt-4.11", "o200k_base"],
    [{ "*/gpt-4*": "o200k_base" }, "azure", "gpt-4", "o200k_base"],
    [{ "openrouter/openai/*": "cl100k_base" }, "openrouter", "openai/gpt-4o", "cl100k_base"],
    [{ "Anthropic/CLAUDE-*": "cl100k_base" }, "ANTHROPIC", "Claude-Opus-4", "cl100k_base"],
    [{ "*": "cl100k_base" }, "x", "gpt-5", "cl100k_base"],
  ])("applies the pattern table %j to %s / %s: %s", (models, providerID, modelID, expected) => {
    const settings: TokenizerSettings = { encoding: "auto", models: models as TokenizerSettings["models"] }
    expect(encodingForModel({ providerID, modelID, settings })).toBe(expected)
  })

  it("uses the first matching pattern in the table's order", () => {
    const settings: TokenizerSettings = {
      encoding: "auto",
      models: { "anthropic/*": "cl100k_base", "*": "o200k_base" },
    }
    expect(encodingForModel({ providerID: "anthropic", modelID: "claude", settings })).toBe("cl100k_base")
    const reversed: TokenizerSettings = {
      encoding: "auto",
      models: { "*": "o200k_base", "anthropic/*": "cl100k_base" },
    }
    expect(encodingForModel({ providerID: "anthropic", modelID: "claude", settings: reversed })).toBe("o200k_base")
  })
})
