import { writeFileSync } from "node:fs"
import { join } from "node:path"
import {
  isTitleRequest,
  messageText,
  type ChatMessage,
  type ChatRequest,
  type MockModelServer,
  type MockReply,
  type MockScript,
} from "./mock-model-server.js"

/** A rendered `§N§ ` prefix at the start of a text. */
export const TAG_PREFIX = /^§(\d+)§ /
/** Any `§N§` tag anywhere in a text. */
export const ANY_TAG = /§\d+§/

/** True for the request OpenCode's own compaction sends (its summarization system prompt). */
export function isCompactionRequest(request: ChatRequest): boolean {
  return request.messages.some(
    (message) => message.role === "system" && messageText(message).includes("context summarization agent"),
  )
}

/** The requests of the session's own steps: neither title generation nor OpenCode's compaction. */
export function mainRequests(mock: MockModelServer): ChatRequest[] {
  return mock.requests
    .map((request) => request.body)
    .filter((body) => !isTitleRequest(body) && !isCompactionRequest(body))
}

/** The tag number of a text's `§N§ ` prefix, or null. */
export function prefixTag(text: string): number | null {
  const match = TAG_PREFIX.exec(text)
  return match ? Number(match[1]) : null
}

/** The tool result messages of a request. */
export function toolMessages(request: ChatRequest): ChatMessage[] {
  return request.messages.filter((message) => message.role === "tool")
}

/** The tool result message answering `callId`, or undefined. */
export function toolResult(request: ChatRequest, callId: string): ChatMessage | undefined {
  return request.messages.find((message) => message.role === "tool" && message.tool_call_id === callId)
}

/** The call id of the tool result whose text contains `marker` (e.g. a file's first line). */
export function callIdOf(request: ChatRequest, marker: string): string | undefined {
  return toolMessages(request).find((message) => messageText(message).includes(marker))?.tool_call_id
}

/** The system messages of a request, as text. */
export function systemTexts(request: ChatRequest): string[] {
  return request.messages.filter((message) => message.role === "system").map(messageText)
}

/** The newest user message's text (without its tag prefix). */
export function lastUserText(request: ChatRequest): string {
  const user = [...request.messages].reverse().find((message) => message.role === "user")
  return user ? messageText(user).replace(TAG_PREFIX, "") : ""
}

/** Wraps a script so every reply is remembered by request number (for usage assertions). */
export function recordingScript(script: MockScript): { script: MockScript; replies: Map<number, MockReply> } {
  const replies = new Map<number, MockReply>()
  return {
    replies,
    script: (request, n) => {
      const reply = script(request, n)
      replies.set(n, reply)
      return reply
    },
  }
}

/** With MAGIC_CONTEXT_KEEP_E2E set (the sandbox is kept), writes what the mock received to `<root>/requests.json`. */
export function keepRequests(root: string, mock: MockModelServer): void {
  if (!process.env["MAGIC_CONTEXT_KEEP_E2E"]) return
  writeFileSync(join(root, "requests.json"), JSON.stringify(mock.requests, null, 2))
}
