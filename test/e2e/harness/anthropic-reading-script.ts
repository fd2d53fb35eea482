import type { AnthropicRequest } from "./anthropic-thinking-rules.js"
import { toolUseId, type AnthropicReply } from "./mock-anthropic-server.js"
import { fileToRead, mockModel, providerConfig, READS_PER_TURN, TURNS, turnDone } from "./reasoning-session.js"

/** The Claude model of the Anthropic reasoning tests: one that runs the preserved-thinking prefix check. */
export const CLAUDE_MODEL = "claude-opus-5-5"

/** The text of a message's content: its text blocks, one a line. */
export function anthropicText(content: AnthropicRequest["messages"][number]["content"]): string {
  if (typeof content === "string") return content
  return content.map((block) => (block.type === "text" ? block.text : "")).join("\n")
}

/**
 * The scripted Claude of `reasoning-session.ts`: a user message naming `TURN-k` starts turn k (read its files, then
 * answer); a tool result continues the turn of the call it answers (the call id names the request that made it); a
 * turn past the scripted ones answers at once, and so does `/ctx-status`. A request without tools (OpenCode's title)
 * gets a title. `pathKey` is the read tool's path argument (OpenCode's `filePath`, Pi's `path`).
 */
export function anthropicReadingScript(
  directory: () => string,
  options: { pathKey?: string; reads?: number } = {},
): (request: AnthropicRequest, n: number) => AnthropicReply {
  const reads = options.reads ?? READS_PER_TURN
  const calls = new Map<string, { turn: number; step: number }>()
  return (request, n) => {
    if ((request.tools ?? []).length === 0) return { kind: "text", text: "Reading files" }
    const newest = request.messages[request.messages.length - 1]
    let position: { turn: number; step: number } | undefined
    if (newest && typeof newest.content !== "string") {
      const result = [...newest.content].reverse().find((block) => block.type === "tool_result")
      if (result && result.type === "tool_result") {
        const previous = calls.get(result.tool_use_id)
        if (previous) position = { turn: previous.turn, step: previous.step + 1 }
      }
    }
    const text = newest ? anthropicText(newest.content) : ""
    if (text.includes("<ctx-status>")) return { kind: "text", text: "STATUS-SHOWN" }
    const marker = /TURN-(\d+)/.exec(text)
    if (!position && marker) position = { turn: Number(marker[1]), step: Number(marker[1]) > TURNS ? reads : 0 }
    if (!position) return { kind: "text", text: "MOCK-LOST" }
    if (position.step >= reads) return { kind: "text", text: turnDone(position.turn) }
    calls.set(toolUseId(n), position)
    return { kind: "tool", name: "read", input: { [options.pathKey ?? "filePath"]: fileToRead(directory(), position.turn, position.step, reads) } }
  }
}

/** OpenCode's config for its Anthropic provider at the mock: the Claude model with `modelOptions`, and `others`. */
export function anthropicConfig(
  url: string,
  modelOptions: Record<string, unknown>,
  others: Record<string, Record<string, unknown>> = {},
): Record<string, unknown> {
  return providerConfig({
    provider: "anthropic",
    npm: "@ai-sdk/anthropic",
    url,
    apiKey: "sk-ant-mock",
    models: { [CLAUDE_MODEL]: mockModel("Claude Opus 5.5 (mock)", { options: modelOptions }), ...others },
  })
}
