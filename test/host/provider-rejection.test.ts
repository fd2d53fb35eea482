import { describe, expect, it } from "vitest"
import { explainReasoningRejection, isReasoningRejection } from "../../src/host/provider-rejection.js"
import { reasoningRuleById } from "../../src/session/reasoning-rules.js"

describe("isReasoningRejection", () => {
  it.each([
    'messages.1.content.0: Invalid `signature` in `thinking` block. The block is bound to a different conversation. Remove the block, or set `thinking.block_binding.prefix_mismatch_behavior` to "drop_block".',
    "messages.3.content.0.type: Expected `thinking` or `redacted_thinking`, but found `tool_use`. When `thinking` is enabled, a final `assistant` message must start with a thinking block (preceeding the lastmost set of `tool_use` and `tool_result` blocks).",
    "messages.5.content.1: `thinking` or `redacted_thinking` blocks in the latest assistant message cannot be modified. These blocks must remain as they were in the original response.",
    "Item 'fc_0a1b' of type 'function_call' was provided without its required 'reasoning' item: 'rs_0a1c'.",
    "Item 'rs_0a1c' of type 'reasoning' was provided without its required following item.",
    "Function call is missing a thought_signature in functionCall parts. This is required for tools to work correctly.",
    "Unable to submit request because function call `getRecentSleep` in the 4. content block is missing a thought_signature.",
  ])("recognises %s", (message) => {
    expect(isReasoningRejection(message)).toBe(true)
  })

  it.each([
    "prompt is too long: 250000 tokens > 200000 maximum",
    "This model's maximum context length is 32000 tokens.",
    "Overloaded",
    "invalid x-api-key",
    "",
  ])("leaves other errors alone: %s", (message) => {
    expect(isReasoningRejection(message)).toBe(false)
  })
})

describe("explainReasoningRejection", () => {
  it("says what the provider said, the rule, the last pass and what to do", () => {
    const text = explainReasoningRejection({
      message: "messages.1.content.0: Invalid `signature` in `thinking` block.",
      status: 400,
      rule: reasoningRuleById("anthropic-prefix-check"),
      lastPass: 12,
    })
    expect(text).toBe(
      'the provider rejected a request over its reasoning state (HTTP 400): "messages.1.content.0: Invalid `signature` in `thinking` block."; ' +
        "the rule magic-context applied: anthropic-prefix-check (signed thinking, byte-identical; a block is valid only while everything before it is unchanged); " +
        "magic-context's last pass was #12 (/ctx-status says what it changed). What to do: start a new session (the stored transcript keeps " +
        "everything: magic-context status --session <id>), and report this with the message above.",
    )
  })

  it("tells how to name the rule when the model had none, and bounds the provider's message", () => {
    const text = explainReasoningRejection({ message: "x".repeat(1_000), status: null, rule: reasoningRuleById("none"), lastPass: null })
    expect(text).toContain(`"${"x".repeat(400)}..."`)
    expect(text).not.toContain("x".repeat(401))
    expect(text).toContain('models: { "<provider/model>": { reasoning: "<rule>" } }')
  })
})
