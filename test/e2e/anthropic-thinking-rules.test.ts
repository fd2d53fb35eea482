import { describe, expect, it } from "vitest"
import { checkThinking, prefixOf, type AnthropicBlock, type AnthropicRequest, type MadeBlock } from "./harness/anthropic-thinking-rules.js"

/**
 * The mock provider's reading of Anthropic's rules on thinking blocks, on hand-made requests: what it accepts must be
 * what the documentation allows, and what it flags what it forbids, or the end-to-end verdicts mean nothing.
 */

const user = (text: string) => ({ role: "user" as const, content: [{ type: "text" as const, text }] })
const result = (id: string) => ({ role: "user" as const, content: [{ type: "tool_result" as const, tool_use_id: id, content: "ok" }] })
const think = (signature: string): AnthropicBlock => ({ type: "thinking", thinking: `t ${signature}`, signature })
const call = (id: string): AnthropicBlock => ({ type: "tool_use", id, name: "read", input: {} })

/** A conversation of three tool-loop steps, each block made by the mock at its own request, chained. */
function conversation(): { request: AnthropicRequest; made: Map<string, MadeBlock> } {
  const made = new Map<string, MadeBlock>()
  const request: AnthropicRequest = { model: "m", thinking: { type: "adaptive" }, system: [{ type: "text", text: "sys" }], messages: [user("go")], tools: [{ name: "read" }] }
  let before: string | null = null
  for (const [index, id] of ["a", "b", "c"].entries()) {
    made.set(`s${id}`, { request: index + 1, prefix: prefixOf(request, request.messages.length), before, text: `t s${id}` })
    request.messages.push({ role: "assistant", content: [think(`s${id}`), call(id)] }, result(id))
    before = `s${id}`
  }
  return { request, made }
}

describe("checkThinking", () => {
  it("accepts the conversation sent back as it was made, cache breakpoints moved", () => {
    const { request, made } = conversation()
    const first = request.messages[1]
    if (first && typeof first.content !== "string") first.content[1] = { ...(first.content[1] as AnthropicBlock), cache_control: { type: "ephemeral" } }
    const verdict = checkThinking(request, made, true)
    expect(verdict.broken).toEqual([])
    expect(verdict.failing).toEqual([])
    expect(verdict.blocks.map((block) => block.runningLoop)).toEqual([false, false, true])
  })

  it("accepts blocks left out from the start or from the end, and fails a gap and everything after it", () => {
    const drop = (keep: string[]) => {
      const { request, made } = conversation()
      for (const message of request.messages) {
        if (typeof message.content === "string") continue
        message.content = message.content.filter((block) => block.type !== "thinking" || keep.includes(block.signature))
      }
      return checkThinking(request, made, true).failing.map((block) => block.path)
    }
    expect(drop(["sb", "sc"])).toEqual([])
    expect(drop(["sa", "sb"])).toEqual([])
    expect(drop([])).toEqual([])
    expect(drop(["sa", "sc"])).toEqual(["messages.5.content.0"])
  })

  it("fails a block whose earlier content changed, and every later one, only where the model runs the check", () => {
    const { request, made } = conversation()
    const read = request.messages[2]
    if (read && typeof read.content !== "string") read.content[0] = { type: "tool_result", tool_use_id: "a", content: "[dropped]" }
    expect(checkThinking(request, made, true).failing.map((block) => block.path)).toEqual(["messages.3.content.0", "messages.5.content.0"])
    expect(checkThinking(request, made, false).failing).toEqual([])
  })

  it("flags a changed block, and under manual thinking a tool loop whose last assistant message lacks its block", () => {
    const { request, made } = conversation()
    const last = request.messages[5]
    if (last && typeof last.content !== "string") last.content = [call("c")]
    expect(checkThinking(request, made, true).broken).toEqual([])
    expect(checkThinking({ ...request, thinking: { type: "enabled", budget_tokens: 1024 } }, made, true).broken).toEqual([
      expect.stringContaining("a final `assistant` message must start with a thinking block"),
    ])
    const first = request.messages[1]
    if (first && typeof first.content !== "string") first.content[0] = { type: "thinking", thinking: "edited", signature: "sa" }
    expect(checkThinking(request, made, true).broken).toEqual([expect.stringContaining("Invalid `signature`")])
  })
})
