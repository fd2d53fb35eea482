import { createHash } from "node:crypto"
import { createServer, type Server, type ServerResponse } from "node:http"
import type { AddressInfo } from "node:net"
import {
  canonicalArgs,
  checkSignatures,
  type GeminiPart,
  type GeminiRequest,
  type MadeSignature,
  type SignatureVerdict,
} from "./gemini-thought-rules.js"
import { onRequestBody } from "./request-body.js"

/** What the scripted model answers: text, or one function call. Every answer carries a thought signature. */
export type GeminiReply = { kind: "text"; text: string } | { kind: "tool"; name: string; input: Record<string, unknown> }

/** Decides the reply to a request; deterministic in the request. */
export type GeminiScript = (request: GeminiRequest, n: number) => GeminiReply

/** One request as the mock received and judged it. */
export type RecordedGeminiRequest = {
  n: number
  /** The model named in the path (`models/{model}:streamGenerateContent`). */
  model: string
  /** True for `:streamGenerateContent` (SSE), false for `:generateContent`. */
  streamed: boolean
  body: GeminiRequest
  verdict: SignatureVerdict
  /** HTTP status answered: 200, or 400 for a request the API would reject. */
  status: number
  /** The error message of a rejected request. */
  error: string | null
}

export type MockGeminiServer = {
  /** The base URL to give the provider (`options.baseURL`): requests go to `${url}/models/{model}:...`. */
  url: string
  requests: RecordedGeminiRequest[]
  close(): Promise<void>
}

/**
 * A deterministic mock of the Gemini API (`generativelanguage.googleapis.com/v1beta`) on 127.0.0.1 (a free port), as
 * the AI SDK's Google provider calls it: `POST {baseURL}/models/{model}:streamGenerateContent?alt=sse`, answered with
 * SSE `data:` lines of GenerateContentResponse JSON (`candidates[0].content.parts`, `finishReason`, `usageMetadata`).
 * Every answer starts with a thought part (`thought: true`) when the request asks for thoughts
 * (`generationConfig.thinkingConfig.includeThoughts`), then either a `functionCall` part carrying a thought signature
 * or text whose last part carries one, as Gemini 3 does. Every request is checked against the documented rules
 * (`gemini-thought-rules.ts`) and answered 400 INVALID_ARGUMENT with Google's error body where the API would.
 */
export async function startMockGeminiServer(options: { script: GeminiScript }): Promise<MockGeminiServer> {
  const requests: RecordedGeminiRequest[] = []
  const made = new Map<string, MadeSignature>()
  let count = 0
  const server: Server = createServer((request, response) => {
    onRequestBody(request, (raw) => {
      const route = /\/models\/([^/:?]+):(streamGenerateContent|generateContent)(?:\?|$)/.exec(request.url ?? "")
      if (request.method !== "POST" || route === null) {
        return answerError(response, 404, "NOT_FOUND", `no route ${request.method} ${request.url}`)
      }
      count += 1
      const n = count
      let body: GeminiRequest
      try {
        body = JSON.parse(raw) as GeminiRequest
      } catch {
        return answerError(response, 400, "INVALID_ARGUMENT", "Invalid JSON payload received.")
      }
      const model = decodeURIComponent(route[1] as string)
      const streamed = route[2] === "streamGenerateContent"
      const verdict = checkSignatures(body, made)
      const recorded: RecordedGeminiRequest = { n, model, streamed, body, verdict, status: 200, error: null }
      requests.push(recorded)
      if (verdict.error !== null) {
        recorded.status = 400
        recorded.error = verdict.error
        return answerError(response, 400, "INVALID_ARGUMENT", verdict.error)
      }
      let reply: GeminiReply
      try {
        reply = options.script(body, n)
      } catch (scriptError) {
        reply = { kind: "text", text: `MOCK-SCRIPT-ERROR ${String(scriptError)}` }
      }
      const thoughts = body.generationConfig?.thinkingConfig?.includeThoughts === true
      const chunks = answerChunks(n, reply, thoughts, made)
      const usage = usageOf(raw.length, reply)
      if (streamed) return stream(response, model, n, chunks, usage)
      return answerJson(response, model, n, chunks.flat(), usage)
    })
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const port = (server.address() as AddressInfo).port
  return {
    url: `http://127.0.0.1:${port}/v1beta`,
    requests,
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve())
        server.closeAllConnections()
      }),
  }
}

/**
 * The request a signature the mock made answered (null for any other value): the AI SDK's provider sends no call ids
 * back (it makes its own), so a script finds the call a function response answers by the signature of the call.
 */
export function signatureRequest(signature: string | undefined): number | null {
  if (signature === undefined) return null
  const match = /^MOCKSIG\.(\d+)\./.exec(Buffer.from(signature, "base64").toString("utf8"))
  return match ? Number(match[1]) : null
}

/** A signature made for request `n` on `what` (opaque base64, as the API's), remembered with the call it came on. */
function signature(n: number, what: string, call: MadeSignature["call"], made: Map<string, MadeSignature>): string {
  const digest = createHash("sha256").update(`${n}\n${what}`).digest("hex").slice(0, 32)
  const value = Buffer.from(`MOCKSIG.${n}.${digest}`).toString("base64")
  made.set(value, { request: n, call })
  return value
}

/** The parts of the answer to request `n`, chunk by chunk (each chunk one SSE event). */
function answerChunks(n: number, reply: GeminiReply, thoughts: boolean, made: Map<string, MadeSignature>): GeminiPart[][] {
  const chunks: GeminiPart[][] = []
  if (thoughts) {
    const thought = reply.kind === "tool" ? `Request ${n}: I should call ${reply.name} next.` : `Request ${n}: I can answer.`
    chunks.push(pieces(thought, 24).map((text) => ({ text, thought: true })))
  }
  if (reply.kind === "tool") {
    const call = { name: reply.name, args: canonicalArgs(reply.input) }
    const thoughtSignature = signature(n, `call ${call.name} ${call.args}`, call, made)
    chunks.push([{ functionCall: { name: reply.name, args: reply.input }, thoughtSignature }])
  } else {
    const texts = pieces(reply.text, 16)
    const last = texts.length - 1
    const thoughtSignature = signature(n, `text ${reply.text}`, null, made)
    // Gemini 3 puts the signature of an answer without a call on its last part.
    chunks.push(...texts.map((text, index): GeminiPart[] => [index === last ? { text, thoughtSignature } : { text }]))
  }
  return chunks
}

type Usage = { promptTokenCount: number; candidatesTokenCount: number; thoughtsTokenCount: number; totalTokenCount: number }

function usageOf(requestChars: number, reply: GeminiReply): Usage {
  const promptTokenCount = Math.round(requestChars / 4)
  const candidatesTokenCount = reply.kind === "tool" ? 20 : Math.max(1, Math.round(reply.text.length / 4))
  const thoughtsTokenCount = 12
  const totalTokenCount = promptTokenCount + candidatesTokenCount + thoughtsTokenCount
  return { promptTokenCount, candidatesTokenCount, thoughtsTokenCount, totalTokenCount }
}

function pieces(text: string, size: number): string[] {
  const out: string[] = []
  for (let at = 0; at < text.length; at += size) out.push(text.slice(at, at + size))
  return out.length > 0 ? out : [""]
}

function answerError(response: ServerResponse, code: number, status: string, message: string): void {
  response.writeHead(code, { "content-type": "application/json; charset=UTF-8" })
  response.end(JSON.stringify({ error: { code, message, status } }))
}

/** One GenerateContentResponse: the parts of one chunk, the last with the finish reason and the usage. */
function responseOf(model: string, n: number, parts: GeminiPart[], last: boolean, usage: Usage): Record<string, unknown> {
  const candidate: Record<string, unknown> = { content: { role: "model", parts }, index: 0 }
  if (last) candidate["finishReason"] = "STOP"
  return {
    candidates: [candidate],
    usageMetadata: last ? usage : { promptTokenCount: usage.promptTokenCount, totalTokenCount: usage.promptTokenCount },
    modelVersion: model,
    responseId: `mock-response-${n}`,
  }
}

function stream(response: ServerResponse, model: string, n: number, chunks: GeminiPart[][], usage: Usage): void {
  response.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache", connection: "keep-alive" })
  chunks.forEach((parts, index) => {
    response.write(`data: ${JSON.stringify(responseOf(model, n, parts, index === chunks.length - 1, usage))}\r\n\r\n`)
  })
  response.end()
}

function answerJson(response: ServerResponse, model: string, n: number, parts: GeminiPart[], usage: Usage): void {
  response.writeHead(200, { "content-type": "application/json; charset=UTF-8" })
  response.end(JSON.stringify(responseOf(model, n, parts, true, usage)))
}
