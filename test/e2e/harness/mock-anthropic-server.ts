import { createHash } from "node:crypto"
import { createServer, type Server, type ServerResponse } from "node:http"
import type { AddressInfo } from "node:net"
import {
  blockKey,
  checkThinking,
  prefixMismatchMessage,
  prefixOf,
  type AnthropicBlock,
  type AnthropicRequest,
  type MadeBlock,
  type ThinkingVerdict,
} from "./anthropic-thinking-rules.js"
import { onRequestBody } from "./request-body.js"

/** What the scripted model answers: text, or one tool call. Every answer starts with a signed thinking block. */
export type AnthropicReply = { kind: "text"; text: string } | { kind: "tool"; name: string; input: Record<string, unknown> }

/** Decides the reply to a request; deterministic in the request. */
export type AnthropicScript = (request: AnthropicRequest, n: number) => AnthropicReply

/** One request as the mock received and judged it. */
export type RecordedAnthropicRequest = {
  n: number
  body: AnthropicRequest
  verdict: ThinkingVerdict
  /** HTTP status answered: 200, or 400 for a request the API would reject. */
  status: number
  /** The error message of a rejected request. */
  error: string | null
  /** Blocks dropped (the request asked for "drop_block" and blocks failed the prefix check). */
  dropped: number
}

export type MockAnthropicServer = {
  /** The base URL to give the provider (`options.baseURL`): requests go to `${url}/messages`. */
  url: string
  requests: RecordedAnthropicRequest[]
  close(): Promise<void>
}

/**
 * A deterministic mock of Anthropic's Messages API on 127.0.0.1 (a free port): streams SSE as the API does, makes a
 * signed thinking block first in every answer to a request that asks for thinking, and checks every block sent back
 * against the documented rules (`anthropic-thinking-rules.ts`), answering 400 with the API's error body where the API
 * would reject the request.
 */
export async function startMockAnthropicServer(options: {
  script: AnthropicScript
  /** The model runs the preserved-thinking prefix check (a function: per the request's model). */
  prefixCheck: boolean | ((model: string) => boolean)
}): Promise<MockAnthropicServer> {
  const requests: RecordedAnthropicRequest[] = []
  const made = new Map<string, MadeBlock>()
  let count = 0
  const server: Server = createServer((request, response) => {
    onRequestBody(request, (raw) => {
      if (request.method !== "POST" || !request.url?.replace(/\?.*$/, "").endsWith("/messages")) {
        return answerError(response, 404, "not_found_error", `no route ${request.method} ${request.url}`)
      }
      count += 1
      const n = count
      let body: AnthropicRequest
      try {
        body = JSON.parse(raw) as AnthropicRequest
      } catch {
        return answerError(response, 400, "invalid_request_error", "the request body is not JSON")
      }
      const prefixCheck = typeof options.prefixCheck === "function" ? options.prefixCheck(body.model) : options.prefixCheck
      const verdict = checkThinking(body, made, prefixCheck)
      const recorded: RecordedAnthropicRequest = { n, body, verdict, status: 200, error: null, dropped: 0 }
      requests.push(recorded)
      const firstFailing = verdict.failing[0]
      const error = verdict.broken[0] ?? (firstFailing && verdict.onMismatch === "error" ? prefixMismatchMessage(firstFailing.path) : null)
      if (error !== null) {
        recorded.status = 400
        recorded.error = error
        return answerError(response, 400, "invalid_request_error", error)
      }
      recorded.dropped = verdict.failing.length
      let reply: AnthropicReply
      try {
        reply = options.script(body, n)
      } catch (scriptError) {
        reply = { kind: "text", text: `MOCK-SCRIPT-ERROR ${String(scriptError)}` }
      }
      const blocks: AnthropicBlock[] = []
      if (body.thinking && body.thinking.type !== "disabled") blocks.push(thinkingBlock(body, n, reply, made))
      if (reply.kind === "tool") blocks.push({ type: "tool_use", id: toolUseId(n), name: reply.name, input: reply.input })
      else blocks.push({ type: "text", text: reply.text })
      stream(response, body, n, blocks, reply.kind === "tool" ? "tool_use" : "end_turn", Math.round(raw.length / 4))
    })
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const port = (server.address() as AddressInfo).port
  return {
    url: `http://127.0.0.1:${port}/v1`,
    requests,
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve())
        server.closeAllConnections()
      }),
  }
}

/** The id of the tool call answering request `n` (its result comes back with it). */
export function toolUseId(n: number): string {
  return `toolu_mock_${String(n).padStart(4, "0")}`
}

/** A thinking block made for request `n`, remembered with its prefix and the block made before it. */
function thinkingBlock(body: AnthropicRequest, n: number, reply: AnthropicReply, made: Map<string, MadeBlock>): AnthropicBlock {
  const thinking = reply.kind === "tool" ? `Request ${n}: I should call ${reply.name} next.` : `Request ${n}: I can answer now.`
  const prefix = prefixOf(body, body.messages.length)
  let before: string | null = null
  for (const message of body.messages) {
    if (typeof message.content === "string") continue
    for (const block of message.content) before = blockKey(block) ?? before
  }
  const signature = `MOCKSIG.${n}.${createHash("sha256").update(`${prefix}\n${before}\n${thinking}`).digest("base64")}`
  made.set(signature, { request: n, prefix, before, text: thinking })
  return { type: "thinking", thinking, signature }
}

function answerError(response: ServerResponse, status: number, type: string, message: string): void {
  response.writeHead(status, { "content-type": "application/json" })
  response.end(JSON.stringify({ type: "error", error: { type, message } }))
}

function pieces(text: string, size: number): string[] {
  const out: string[] = []
  for (let at = 0; at < text.length; at += size) out.push(text.slice(at, at + size))
  return out
}

function stream(response: ServerResponse, body: AnthropicRequest, n: number, blocks: AnthropicBlock[], stopReason: string, inputTokens: number): void {
  const message = {
    id: `msg_mock_${n}`,
    type: "message",
    role: "assistant",
    model: body.model,
    content: [],
    stop_reason: null,
    stop_sequence: null,
    usage: { input_tokens: inputTokens, cache_creation_input_tokens: 0, cache_read_input_tokens: 0, output_tokens: 1 },
  }
  response.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache", connection: "keep-alive" })
  const send = (event: string, data: unknown): void => void response.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`)
  send("message_start", { type: "message_start", message })
  blocks.forEach((block, index) => {
    if (block.type === "thinking") {
      send("content_block_start", { type: "content_block_start", index, content_block: { type: "thinking", thinking: "", signature: "" } })
      for (const piece of pieces(block.thinking, 24)) {
        send("content_block_delta", { type: "content_block_delta", index, delta: { type: "thinking_delta", thinking: piece } })
      }
      send("content_block_delta", { type: "content_block_delta", index, delta: { type: "signature_delta", signature: block.signature } })
    } else if (block.type === "text") {
      send("content_block_start", { type: "content_block_start", index, content_block: { type: "text", text: "" } })
      for (const piece of pieces(block.text, 16)) send("content_block_delta", { type: "content_block_delta", index, delta: { type: "text_delta", text: piece } })
    } else if (block.type === "tool_use") {
      send("content_block_start", { type: "content_block_start", index, content_block: { type: "tool_use", id: block.id, name: block.name, input: {} } })
      send("content_block_delta", { type: "content_block_delta", index, delta: { type: "input_json_delta", partial_json: JSON.stringify(block.input) } })
    }
    send("content_block_stop", { type: "content_block_stop", index })
  })
  send("message_delta", { type: "message_delta", delta: { stop_reason: stopReason, stop_sequence: null }, usage: { output_tokens: 20 } })
  send("message_stop", { type: "message_stop" })
  response.end()
}
