import { createServer, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import { onRequestBody } from "./request-body.js"

/** One chat-completions request as the mock received it. */
export type RecordedRequest = {
  n: number
  body: ChatRequest
  /** When the request arrived and when the mock started answering it (`Date.now()`). */
  receivedAt: number
  answeredAt?: number
}

export type ChatMessage = {
  role: "system" | "user" | "assistant" | "tool"
  content?: string | { type: string; text?: string }[] | null
  tool_calls?: { id: string; function: { name: string; arguments: string } }[]
  tool_call_id?: string
}

export type ChatRequest = {
  model: string
  messages: ChatMessage[]
  tools?: { function: { name: string } }[]
  stream?: boolean
}

/** One tool call of a reply. */
export type MockToolCall = { name: string; args: Record<string, unknown> }

/**
 * What the mock answers: text, one tool call, or several tool calls in one response (parallel tool calls, as a
 * model that reads a file and calls ctx_reduce in the same step sends them). `promptTokens` sets the reported usage.
 * `hold` delays the answer until it settles (a slow model; the request stays open meanwhile). `overflow` refuses the
 * request as a provider refuses a prompt longer than its context window (HTTP 400, OpenAI's wording, which hosts
 * detect as an overflow).
 */
export type MockReply =
  | { kind: "text"; text: string; promptTokens?: number; hold?: Promise<unknown> }
  | ({ kind: "tool"; promptTokens?: number; hold?: Promise<unknown> } & MockToolCall)
  | { kind: "tools"; calls: readonly MockToolCall[]; promptTokens?: number; hold?: Promise<unknown> }
  | { kind: "overflow"; contextWindow: number; promptTokens: number; hold?: Promise<unknown> }

/** Decides the reply to a request; must be deterministic in the request for reproducible runs. */
export type MockScript = (request: ChatRequest, n: number) => MockReply

export type MockModelServer = {
  url: string
  requests: RecordedRequest[]
  close(): Promise<void>
}

/** The text of a chat message's content, parts joined by newlines. */
export function messageText(message: ChatMessage): string {
  const content = message.content
  if (typeof content === "string") return content
  if (Array.isArray(content)) return content.map((part) => part.text ?? "").join("\n")
  return ""
}

/**
 * The id the mock gives the tool call it answers request `n` with (the tool result comes back with it); the calls
 * after the first of a several-call reply get their position too.
 */
export function toolCallId(n: number, index = 0): string {
  return index === 0 ? `call_${n}` : `call_${n}_${index}`
}

/** The tool calls of a reply, in order (none for text and overflow). */
export function replyCalls(reply: MockReply): readonly MockToolCall[] {
  if (reply.kind === "tool") return [{ name: reply.name, args: reply.args }]
  if (reply.kind === "tools") return reply.calls
  return []
}

/** True for the title-generation request OpenCode sends on the first step (no tools, fixed prompt). */
export function isTitleRequest(request: ChatRequest): boolean {
  return (request.tools ?? []).length === 0 && request.messages.some((message) => messageText(message).includes("Generate a title"))
}

/**
 * A deterministic OpenAI-compatible chat-completions server on 127.0.0.1 (a free port). Streams SSE like a real
 * provider, reports usage, and records every request body for assertions.
 */
export async function startMockModelServer(script: MockScript): Promise<MockModelServer> {
  const requests: RecordedRequest[] = []
  let count = 0
  const server: Server = createServer((request, response) => {
    onRequestBody(request, (raw) => {
      if (request.method === "GET" && request.url?.endsWith("/models")) {
        response.writeHead(200, { "content-type": "application/json" })
        response.end(JSON.stringify({ object: "list", data: [{ id: "mock-model", object: "model", owned_by: "mock" }] }))
        return
      }
      if (request.method !== "POST" || !request.url?.endsWith("/chat/completions")) {
        response.writeHead(404)
        response.end("not found")
        return
      }
      count += 1
      const n = count
      let body: ChatRequest
      try {
        body = JSON.parse(raw) as ChatRequest
      } catch {
        response.writeHead(400)
        response.end("bad json")
        return
      }
      const recorded: RecordedRequest = { n, body, receivedAt: Date.now() }
      requests.push(recorded)
      let reply: MockReply
      try {
        reply = script(body, n)
      } catch (error) {
        reply = { kind: "text", text: `MOCK-SCRIPT-ERROR ${String(error)}` }
      }
      const answer = (): void => {
        recorded.answeredAt = Date.now()
        stream(response, reply, n, body)
      }
      if (reply.hold) void reply.hold.then(answer, answer)
      else answer()
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
        // Keep-alive connections and held answers would otherwise keep the server open.
        server.closeAllConnections()
      }),
  }
}

function stream(
  response: import("node:http").ServerResponse,
  reply: MockReply,
  n: number,
  body: ChatRequest,
): void {
  const base = { id: `chatcmpl-${n}`, object: "chat.completion.chunk", created: 1_700_000_000 + n, model: body.model }
  if (reply.kind === "overflow") {
    const message = `This model's maximum context length is ${reply.contextWindow} tokens. However, you requested about ${reply.promptTokens} tokens.`
    response.writeHead(400, { "content-type": "application/json" })
    response.end(JSON.stringify({ error: { message, type: "invalid_request_error", code: "context_length_exceeded" } }))
    return
  }
  const send = (payload: unknown): void => void response.write(`data: ${JSON.stringify(payload)}\n\n`)
  const promptTokens = reply.promptTokens ?? 100 + n
  const usage = { prompt_tokens: promptTokens, completion_tokens: 10, total_tokens: promptTokens + 10 }
  response.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache", connection: "keep-alive" })
  const calls = replyCalls(reply)
  if (calls.length > 0) {
    // Each call as a provider streams it: its id and name first, then its arguments, the calls one after another.
    calls.forEach((call, index) => {
      const opening = { index, id: toolCallId(n, index), type: "function", function: { name: call.name, arguments: "" } }
      const delta = index === 0 ? { role: "assistant", content: null, tool_calls: [opening] } : { tool_calls: [opening] }
      send({ ...base, choices: [{ index: 0, delta, finish_reason: null }] })
      send({
        ...base,
        choices: [{ index: 0, delta: { tool_calls: [{ index, function: { arguments: JSON.stringify(call.args) } }] }, finish_reason: null }],
      })
    })
    send({ ...base, choices: [{ index: 0, delta: {}, finish_reason: "tool_calls" }] })
  } else if (reply.kind === "text") {
    send({ ...base, choices: [{ index: 0, delta: { role: "assistant", content: "" }, finish_reason: null }] })
    for (const piece of reply.text.match(/[\s\S]{1,16}/g) ?? []) {
      send({ ...base, choices: [{ index: 0, delta: { content: piece }, finish_reason: null }] })
    }
    send({ ...base, choices: [{ index: 0, delta: {}, finish_reason: "stop" }] })
  }
  send({ ...base, choices: [], usage })
  response.write("data: [DONE]\n\n")
  response.end()
}
