import { createHash } from "node:crypto"
import { createServer, type Server, type ServerResponse } from "node:http"
import type { AddressInfo } from "node:net"
import {
  checkReasoning,
  prefixOf,
  type MadeReasoning,
  type ReasoningVerdict,
  type ResponsesApiError,
  type ResponsesRequest,
} from "./openai-reasoning-rules.js"
import { onRequestBody } from "./request-body.js"

/** What the scripted model answers: text, or one function call. Every answer starts with a reasoning item. */
export type OpenAIReply =
  { kind: "text"; text: string } | { kind: "tool"; name: string; input: Record<string, unknown> }

/** Decides the reply to a request; deterministic in the request. */
export type OpenAIScript = (request: ResponsesRequest, n: number) => OpenAIReply

/** One request as the mock received and judged it. */
export type RecordedResponsesRequest = {
  n: number
  body: ResponsesRequest
  verdict: ReasoningVerdict
  /** HTTP status answered: 200, or 400 for a request the API would reject. */
  status: number
  /** The error answered with a 400. */
  error: ResponsesApiError | null
}

export type MockOpenAIResponsesServer = {
  /** The base URL to give the provider (`options.baseURL`): requests go to `${url}/responses`. */
  url: string
  requests: RecordedResponsesRequest[]
  /** Every reasoning item the mock made, in order. */
  made: MadeReasoning[]
  close(): Promise<void>
}

/**
 * A deterministic mock of OpenAI's `POST /v1/responses` on 127.0.0.1 (a free port). It streams SSE as the API does
 * (the event sequence of recorded API streams: `response.created`, `response.in_progress`, per output item
 * `response.output_item.added` ... `response.output_item.done`, then `response.completed` with usage), starts every
 * answer with a reasoning item (`rs_…`, a summary when `reasoning.summary` is asked for, `encrypted_content` when
 * `include` asks for it; the `output_item.added` copy carries an incomplete one, as the API's may) followed by a
 * function call (`fc_…`, `call_…`) or a message (`msg_…`). It checks every request against OpenAI's rules
 * (`openai-reasoning-rules.ts`) and answers 400 with the API's error body where the API would reject it.
 */
export async function startMockOpenAIResponsesServer(options: {
  script: OpenAIScript
}): Promise<MockOpenAIResponsesServer> {
  const requests: RecordedResponsesRequest[] = []
  const made: MadeReasoning[] = []
  let count = 0
  const server: Server = createServer((request, response) => {
    onRequestBody(request, (raw) => {
      if (request.method !== "POST" || !request.url?.replace(/\?.*$/, "").endsWith("/responses")) {
        return answerError(response, 404, {
          message: `Invalid URL (${request.method} ${request.url})`,
          param: null,
          code: null,
        })
      }
      count += 1
      const n = count
      let body: ResponsesRequest
      try {
        body = JSON.parse(raw) as ResponsesRequest
      } catch {
        return answerError(response, 400, {
          message: "We could not parse the JSON body of your request.",
          param: null,
          code: null,
        })
      }
      // `input` may be a string: one user message.
      const input: unknown = body.input
      if (typeof input === "string") body = { ...body, input: [{ role: "user", content: input }] }
      else if (!Array.isArray(input)) body = { ...body, input: [] }
      const verdict = checkReasoning(body, made)
      const recorded: RecordedResponsesRequest = { n, body, verdict, status: 200, error: null }
      requests.push(recorded)
      const error = verdict.errors[0]
      if (error !== undefined) {
        recorded.status = 400
        recorded.error = error
        return answerError(response, 400, error)
      }
      let reply: OpenAIReply
      try {
        reply = options.script(body, n)
      } catch (scriptError) {
        reply = { kind: "text", text: `MOCK-SCRIPT-ERROR ${String(scriptError)}` }
      }
      stream(response, body, n, reply, made, Math.round(raw.length / 4))
    })
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const port = (server.address() as AddressInfo).port
  return {
    url: `http://127.0.0.1:${port}/v1`,
    requests,
    made,
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve())
        server.closeAllConnections()
      }),
  }
}

/** The `call_id` of the function call answering request `n` (its output comes back with it). */
export function functionCallId(n: number): string {
  return `call_mock_${String(n).padStart(4, "0")}`
}

/** An id in the API's shape: its prefix, then hex naming the request. */
function itemId(prefix: "resp" | "rs" | "fc" | "msg", n: number): string {
  const hex = createHash("sha256").update(`${prefix}${n}`).digest("hex").slice(0, 32)
  return `${prefix}_mock${String(n).padStart(4, "0")}${hex}`
}

/** Opaque, deterministic in what the item was made after: `gAAAAAB` as the API's, then base64url. */
function encryptedContent(n: number, prefix: string, summary: string): string {
  const digest = (salt: string) =>
    createHash("sha256").update(`${salt}\n${n}\n${prefix}\n${summary}`).digest("base64url")
  return `gAAAAAB${digest("a")}${digest("b")}${digest("c")}==`
}

function answerError(response: ServerResponse, status: number, error: ResponsesApiError): void {
  response.writeHead(status, { "content-type": "application/json" })
  response.end(
    JSON.stringify({
      error: { message: error.message, type: "invalid_request_error", param: error.param, code: error.code },
    }),
  )
}

function pieces(text: string, size: number): string[] {
  const out: string[] = []
  for (let at = 0; at < text.length; at += size) out.push(text.slice(at, at + size))
  return out
}

function stream(
  response: ServerResponse,
  body: ResponsesRequest,
  n: number,
  reply: OpenAIReply,
  made: MadeReasoning[],
  inputTokens: number,
): void {
  const summaryText =
    reply.kind === "tool"
      ? `**Next step**\n\nRequest ${n}: I should call ${reply.name} next.`
      : `**Answering**\n\nRequest ${n}: I can answer now.`
  const withSummary = body.reasoning?.summary != null
  const withEncrypted = (body.include ?? []).includes("reasoning.encrypted_content")
  const prefix = prefixOf(body, body.input.length)
  const reasoningId = itemId("rs", n)
  const encrypted = encryptedContent(n, prefix, summaryText)
  const summary = withSummary ? [{ type: "summary_text", text: summaryText }] : []
  const reasoningDone = {
    id: reasoningId,
    type: "reasoning",
    encrypted_content: withEncrypted ? encrypted : null,
    summary,
  }
  const args = reply.kind === "tool" ? JSON.stringify(reply.input) : ""
  const callId = functionCallId(n)
  const nextId = itemId(reply.kind === "tool" ? "fc" : "msg", n)
  const text = reply.kind === "text" ? reply.text : ""
  const outputText = { type: "output_text", annotations: [], logprobs: [], text }
  const nextDone =
    reply.kind === "tool"
      ? { id: nextId, type: "function_call", status: "completed", arguments: args, call_id: callId, name: reply.name }
      : { id: nextId, type: "message", status: "completed", content: [outputText], role: "assistant" }
  if (withEncrypted) {
    made.push({
      id: reasoningId,
      request: n,
      encryptedContent: encrypted,
      next:
        reply.kind === "tool"
          ? { type: "function_call", id: nextId, callId, name: reply.name, arguments: args }
          : { type: "message", id: nextId, text },
      prefix,
    })
  }

  const responseId = itemId("resp", n)
  const createdAt = 1_767_225_600 + n
  const base = {
    id: responseId,
    object: "response",
    created_at: createdAt,
    status: "in_progress",
    error: null,
    incomplete_details: null,
    instructions: body.instructions ?? null,
    model: body.model,
    output: [] as unknown[],
    parallel_tool_calls: true,
    previous_response_id: null,
    reasoning: { effort: body.reasoning?.effort ?? "medium", summary: body.reasoning?.summary ?? null },
    service_tier: "auto",
    store: body.store ?? true,
    tools: body.tools ?? [],
    usage: null,
  }
  response.writeHead(200, {
    "content-type": "text/event-stream",
    "cache-control": "no-cache",
    connection: "keep-alive",
  })
  let sequence = 0
  const send = (type: string, data: Record<string, unknown>): void => {
    response.write(`event: ${type}\ndata: ${JSON.stringify({ type, sequence_number: sequence, ...data })}\n\n`)
    sequence += 1
  }
  send("response.created", { response: base })
  send("response.in_progress", { response: base })

  // The reasoning item: its added copy's encrypted content is incomplete, the done one is what comes back.
  send("response.output_item.added", {
    output_index: 0,
    item: {
      id: reasoningId,
      type: "reasoning",
      encrypted_content: withEncrypted ? encrypted.slice(0, 40) : null,
      summary: [],
    },
  })
  if (withSummary) {
    const part = { item_id: reasoningId, output_index: 0, summary_index: 0 }
    send("response.reasoning_summary_part.added", { ...part, part: { type: "summary_text", text: "" } })
    for (const delta of pieces(summaryText, 16)) send("response.reasoning_summary_text.delta", { ...part, delta })
    send("response.reasoning_summary_text.done", { ...part, text: summaryText })
    send("response.reasoning_summary_part.done", { ...part, part: { type: "summary_text", text: summaryText } })
  }
  send("response.output_item.done", { output_index: 0, item: reasoningDone })

  if (reply.kind === "tool") {
    send("response.output_item.added", {
      output_index: 1,
      item: {
        id: nextId,
        type: "function_call",
        status: "in_progress",
        arguments: "",
        call_id: callId,
        name: reply.name,
      },
    })
    for (const delta of pieces(args, 24))
      send("response.function_call_arguments.delta", { item_id: nextId, output_index: 1, delta })
    send("response.function_call_arguments.done", { item_id: nextId, output_index: 1, arguments: args })
  } else {
    send("response.output_item.added", {
      output_index: 1,
      item: { id: nextId, type: "message", status: "in_progress", content: [], role: "assistant" },
    })
    const part = { item_id: nextId, output_index: 1, content_index: 0 }
    send("response.content_part.added", { ...part, part: { ...outputText, text: "" } })
    for (const delta of pieces(text, 16)) send("response.output_text.delta", { ...part, delta, logprobs: [] })
    send("response.output_text.done", { ...part, text, logprobs: [] })
    send("response.content_part.done", { ...part, part: outputText })
  }
  send("response.output_item.done", { output_index: 1, item: nextDone })

  const usage = {
    input_tokens: inputTokens,
    input_tokens_details: { cached_tokens: 0 },
    output_tokens: 30,
    output_tokens_details: { reasoning_tokens: 10 },
    total_tokens: inputTokens + 30,
  }
  send("response.completed", { response: { ...base, status: "completed", output: [reasoningDone, nextDone], usage } })
  response.end()
}
