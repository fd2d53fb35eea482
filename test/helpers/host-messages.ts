import type { ReplyCreated } from "../../src/pass/calibrate.js"
import { defaultConfig } from "../../src/config/schema.js"
import { createSessionRegistry } from "../../src/pass/session-registry.js"
import type { SessionState } from "../../src/session/session-state.js"
import { runPass, type PassResult } from "../../src/pass/run-pass.js"
import type { Clock } from "../../src/pass/system-clock.js"
import { applyEdits } from "../../src/session/apply-edits.js"
import { fixedWindow, type WindowSettings } from "../../src/pressure/model-window.js"
import type { Database } from "../../src/store/driver.js"
import type { ReasoningRule } from "../../src/session/reasoning-rules.js"
import { MEMORY_DATABASE, openDatabase } from "../../src/store/open-database.js"
import type { PassTrigger } from "../../src/store/pass-repository.js"
import { statement } from "../../src/store/statements.js"
import type { TokenCounter } from "../../src/tokens/token-counter.js"
import type { OpenCodeMessage } from "../../src/plugin/opencode-messages.js"
import type { HostAssistantInfo as AssistantMessage, HostMessage, HostPart, HostPart as Part, HostToolState as ToolState, HostUserInfo as UserMessage } from "../../src/transcript/host-message.js"
import { passCachesOf } from "./pass-caches-of.js"

/**
 * Builders for OpenCode host messages (`{ info, parts }`) with deterministic ids, plus a `:memory:` store, a fake
 * token counter and a fixed clock for pure tests of the pass.
 */

export const TEST_SESSION = "ses_test"
export const TEST_MODEL = { providerID: "openai", modelID: "gpt-4o" }

/** The ids a part needs from the message it belongs to. */
export type PartOwner = { sessionID: string; messageID: string }

/** Builds one or more parts (a file with inlined content is several) once the owning message is known. */
export type PartSpec = (owner: PartOwner) => Part | Part[]

type MessageOptions = { id: string; sessionID?: string; created?: number; parts?: PartSpec[] }

/** A user message with the given parts (ids are taken as given, so tests stay deterministic). */
export function userMessage(
  options: MessageOptions & { model?: { providerID: string; modelID: string } },
): HostMessage {
  const sessionID = options.sessionID ?? TEST_SESSION
  const info: UserMessage = {
    id: options.id,
    sessionID,
    role: "user",
    time: { created: options.created ?? 1 },
    agent: "build",
    model: options.model ?? TEST_MODEL,
  }
  return { info, parts: buildParts(options.parts ?? [], { sessionID, messageID: options.id }) }
}

/** An assistant message with the given parts. */
export function assistantMessage(options: MessageOptions & { parentID?: string }): HostMessage {
  const sessionID = options.sessionID ?? TEST_SESSION
  const created = options.created ?? 2
  const info: AssistantMessage = {
    id: options.id,
    sessionID,
    role: "assistant",
    time: { created, completed: created },
    parentID: options.parentID ?? "",
    modelID: TEST_MODEL.modelID,
    providerID: TEST_MODEL.providerID,
    mode: "build",
    path: { cwd: "/", root: "/" },
    cost: 0,
    tokens: { input: 0, output: 0, reasoning: 0, cache: { read: 0, write: 0 } },
  }
  return { info, parts: buildParts(options.parts ?? [], { sessionID, messageID: options.id }) }
}

function buildParts(specs: PartSpec[], owner: PartOwner): Part[] {
  return specs.flatMap((spec) => spec(owner))
}

/** A text part a person or the model wrote. */
export function text(id: string, body: string, extra: { synthetic?: boolean; ignored?: boolean } = {}): PartSpec {
  return (owner) => ({ id, ...owner, type: "text", text: body, ...extra })
}

/** A text part the harness inserted (a reminder, file content). */
export function syntheticText(id: string, body: string): PartSpec {
  return text(id, body, { synthetic: true })
}

/** A reasoning part. */
export function reasoning(id: string, body: string): PartSpec {
  return (owner) => ({ id, ...owner, type: "reasoning", text: body, time: { start: 1, end: 2 } })
}

/** A tool part in the given state; the call id is derived from the part id. */
export function tool(id: string, name: string, state: ToolState): PartSpec {
  return (owner) => ({ id, ...owner, type: "tool", callID: `call_${id}`, tool: name, state })
}

export function pending(input: Record<string, unknown> = {}): ToolState {
  return { status: "pending", input, raw: JSON.stringify(input) }
}

export function running(input: Record<string, unknown> = {}): ToolState {
  return { status: "running", input, time: { start: 10 } }
}

export function completed(input: Record<string, unknown>, output: string): ToolState {
  return { status: "completed", input, output, title: "done", metadata: {}, time: { start: 10, end: 20 } }
}

export function failed(input: Record<string, unknown>, error: string): ToolState {
  return { status: "error", input, error, time: { start: 10, end: 20 } }
}

/** A file part with no inlined content (an image, a PDF): OpenCode sends it as media. */
export function mediaFile(id: string, filename: string, mime = "image/png"): PartSpec {
  return (owner) => ({ id, ...owner, type: "file", mime, filename, url: `data:${mime};base64,AAAA` })
}

/**
 * A text file as OpenCode sends it: its content as synthetic text parts (`<id>-c0`, `<id>-c1`, ...) directly before
 * the `file` part itself.
 */
export function inlinedFile(id: string, filename: string, contents: string[]): PartSpec {
  return (owner) => [
    ...contents.map(
      (body, index): Part => ({ id: `${id}-c${index}`, ...owner, type: "text", text: body, synthetic: true }),
    ),
    { id, ...owner, type: "file", mime: "text/plain", filename, url: `file:///${filename}` },
  ]
}

/** A deep copy, as OpenCode hands fresh copies of the session to every transform call. */
export function freshCopy(messages: readonly HostMessage[]): HostMessage[] {
  return structuredClone(messages) as HostMessage[]
}

/** A deterministic fake tokenizer: one token per whitespace-separated word. */
export const wordCounter: TokenCounter = {
  encoding: "words",
  count: (body) => body.split(/\s+/).filter((word) => word.length > 0).length,
}

/** A clock that never moves, so pass records are deterministic. */
/** `count` filler words of 50 distinct ones (each one token to `wordCounter`). */
export function fillerWords(count: number): string {
  return Array.from({ length: count }, (_, index) => `w${index % 50}`).join(" ")
}

export const fixedClock: Clock = { now: () => 1_700_000_000_000, mark: () => 0, elapsedMs: () => 0 }

/** A window so large that no pass ever reaches the execute threshold (1M usable tokens, 50k protected). */
export const ROOMY_WINDOW: WindowSettings = fixedWindow({ usableTokens: 1_000_000, config: defaultConfig() })

/** Opens a fresh, migrated in-memory store. */
export function memoryStore(): Promise<Database> {
  return openDatabase(MEMORY_DATABASE)
}

/** Creates (or loads) a session in `db` and returns its state, as the transform hook does. */
export function sessionState(options: { db: Database; counter: TokenCounter; sessionId?: string }): SessionState {
  const registry = createSessionRegistry({ db: options.db, now: fixedClock.now })
  return registry.stateFor(
    { id: options.sessionId ?? TEST_SESSION, source: "opencode", projectId: null, directory: null, title: null },
    options.counter,
  )
}

/** The stored `content_json` of every part of a session, by part id (the exact stored bytes). */
export function storedContentJson(db: Database, sessionId: string = TEST_SESSION): Map<string, string> {
  const rows = statement(db, "SELECT id, content_json FROM parts WHERE session_id = ?").all([sessionId])
  return new Map(rows.map((row) => [String(row["id"]), String(row["content_json"])]))
}

/** Every stored tag of a session as `partId -> tag`, read from the store (not the in-memory state). */
export function storedTags(db: Database, sessionId: string = TEST_SESSION): Map<string, number> {
  const rows = statement(db, "SELECT part_id, tag FROM tags WHERE session_id = ? ORDER BY tag").all([sessionId])
  return new Map(rows.map((row) => [String(row["part_id"]), Number(row["tag"])]))
}

/** All parts of all messages, flattened in order. */
export function allParts(messages: readonly HostMessage[]): HostPart[] {
  return messages.flatMap((message) => message.parts)
}

/** The part with `id`, or a thrown error (keeps tests free of non-null assertions). */
export function partById(messages: readonly HostMessage[], id: string): HostPart {
  const found = allParts(messages).find((part) => part.id === id)
  if (!found) throw new Error(`no part ${id}`)
  return found
}

/** The model-visible text of a text/reasoning part or a finished tool's output/error, for assertions. */
export function visibleText(part: Part): string {
  if (part.type === "text" || part.type === "reasoning") return part.text
  if (part.type === "tool" && part.state.status === "completed") return part.state.output
  if (part.type === "tool" && part.state.status === "error") return part.state.error
  throw new Error(`part ${part.id} (${part.type}) has no visible text`)
}

/**
 * One transform call as the hook makes it: a pass over a fresh copy of `messages`, then the edits applied to that
 * copy. Returns the pass result and the rendered copy; `messages` itself is never touched. Unless told otherwise the
 * pass runs in ROOMY_WINDOW with visible tags, no fixed prompt, no smart drops and the fixed clock's time.
 */
export function passAndRender(options: {
  db: Database
  state: SessionState
  messages: readonly HostMessage[]
  counter: TokenCounter
  trigger?: PassTrigger
  tagsVisible?: boolean
  window?: WindowSettings
  fixedTokens?: number
  now?: number
  smartDrops?: boolean
  replyCreated?: ReplyCreated
  loopThinkingRequired?: boolean
  withholdAllReasoning?: boolean
  reasoningRuleOf?: (providerID: string, modelID: string) => ReasoningRule
}): { result: PassResult; rendered: HostMessage[] } {
  const rendered = freshCopy(options.messages)
  const result = runPass({
    db: options.db,
    state: options.state,
    caches: passCachesOf(options.state),
    messages: rendered,
    counter: options.counter,
    clock: fixedClock,
    trigger: options.trigger ?? "transform",
    tagsVisible: options.tagsVisible ?? true,
    window: options.window ?? ROOMY_WINDOW,
    fixedTokens: options.fixedTokens ?? 0,
    now: options.now ?? fixedClock.now(),
    smartDrops: options.smartDrops ?? false,
    ...(options.replyCreated ? { replyCreated: options.replyCreated } : {}),
    ...(options.loopThinkingRequired ? { loopThinkingRequired: true } : {}),
    ...(options.withholdAllReasoning ? { withholdAllReasoning: true } : {}),
    ...(options.reasoningRuleOf ? { reasoningRuleOf: options.reasoningRuleOf } : {}),
  })
  applyEdits(rendered, result.edits)
  return { result, rendered }
}

/**
 * Messages handed to OpenCode's hooks as OpenCode types them: the builders here make them from OpenCode's own types,
 * so the cast only forgets what the engine's narrower vocabulary leaves out.
 */
export function asOpenCodeMessages(messages: HostMessage[]): OpenCodeMessage[] {
  return messages as unknown as OpenCodeMessage[]
}
