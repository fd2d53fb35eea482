import type { ContextEvent } from "@mariozechner/pi-coding-agent"
import type { HostAssistantInfo as AssistantMessage, HostMessage, HostPart as Part, HostToolPart as ToolPart, HostUserInfo as UserMessage } from "../transcript/host-message.js"
import { omittedDataUrl } from "../transcript/importers/omitted-data-url.js"
import { PI_ROLES_NOT_READ } from "../transcript/importers/pi.js"
import { piSentAsUserContent, PI_ROLES_SENT_AS_USER, type PiSentAsUserMessage } from "../transcript/importers/pi-sent-as-user.js"

/** One message of Pi's context (`context` event). */
export type PiMessage = ContextEvent["messages"][number]
type PiUser = Extract<PiMessage, { role: "user" }>
type PiAssistant = Extract<PiMessage, { role: "assistant" }>
type PiToolResult = Extract<PiMessage, { role: "toolResult" }>
type PiContent = Exclude<PiUser["content"], string>[number]

/**
 * Pi's context as the engine sees it, and the way back. The engine works on host messages (user and assistant
 * messages of parts, a tool's call and result in one part); Pi sends a tool's result as a message of its own after
 * the assistant message that called it. Pi's own kinds of message that it sends the model as user text (a `!` shell
 * run, an extension's message, a compaction's or a branch's summary: `PI_ROLES_SENT_AS_USER`) are user messages of
 * inserted (synthetic) text, the text Pi sends, as a replay reads them. Messages the engine does not read (a result
 * whose call is missing, an aborted empty reply, a `!!` run Pi sends nothing for, a role Pi does not define) are
 * passed through untouched where they were.
 */
export type PiContext = {
  /** What the engine reads: Pi's user and assistant messages, each tool result folded into its call. */
  messages: HostMessage[]
  /** Roles of messages passed through that Pi does not define either (an extension's own kinds of message). */
  unknownRoles: string[]
  /** Pi's list again, each message rebuilt from the edited host messages (inserted ones included, removed ones left out). */
  rebuild(edited: readonly HostMessage[]): PiMessage[]
}

/** The roles the engine reads (a result whose call is missing, or an aborted empty reply, still passes through). */
const KNOWN_ROLES: ReadonlySet<string> = new Set(["user", "assistant", "toolResult"])

/** Where each Pi message went: a host message of its own, a tool part of one, or nowhere (passed through). */
type Origin =
  | { kind: "message"; id: string }
  | { kind: "result"; messageId: string; partId: string }
  | { kind: "opaque" }

/**
 * Reads Pi's context. Ids come from each message's role and timestamp (and its rank among messages with the same
 * two), never its position: Pi's compaction and branch changes remove earlier messages, and the ids of the messages
 * that stay must not move (the store knows parts by id).
 */
export function readPiContext(sessionID: string, pi: readonly PiMessage[]): PiContext {
  const messages: HostMessage[] = []
  const origins: Origin[] = []
  const calls = new Map<string, { message: HostMessage; part: ToolPart }>()
  const seen = new Map<string, number>()
  const unknownRoles: string[] = []
  let lastUserId = ""
  let lastModel = { providerID: "pi", modelID: "unknown" }

  const keyOf = (message: PiMessage): string => {
    const base = `${message.role}_${message.timestamp}`
    const rank = seen.get(base) ?? 0
    seen.set(base, rank + 1)
    return `pi_${base}_${rank}`
  }

  for (const message of pi) {
    const id = keyOf(message)
    if (message.role === "user") {
      const info: UserMessage = { id, sessionID, role: "user", time: { created: message.timestamp }, agent: "pi", model: lastModel }
      lastUserId = id
      messages.push({ info, parts: userParts(message, { sessionID, messageID: id }) })
      origins.push({ kind: "message", id })
      continue
    }
    const own = PI_ROLES_SENT_AS_USER.has(message.role) ? piSentAsUserContent(message as PiSentAsUserMessage) : []
    if (own.length > 0) {
      const info: UserMessage = { id, sessionID, role: "user", time: { created: message.timestamp }, agent: "pi", model: lastModel }
      lastUserId = id
      const parts = userParts({ role: "user", content: own, timestamp: message.timestamp }, { sessionID, messageID: id })
      messages.push({ info, parts: parts.map((part) => (part.type === "text" ? { ...part, synthetic: true } : part)) })
      origins.push({ kind: "message", id })
      continue
    }
    if (message.role === "assistant" && message.content.length > 0) {
      lastModel = { providerID: message.provider, modelID: message.model }
      const host: HostMessage = { info: assistantInfo(message, { id, sessionID, parentID: lastUserId }), parts: [] }
      message.content.forEach((block, index) => {
        const part = assistantPart(block, { id: `${id}_${index}`, sessionID, messageID: id, at: message.timestamp })
        host.parts.push(part)
        if (part.type === "tool") calls.set(part.callID, { message: host, part })
      })
      messages.push(host)
      origins.push({ kind: "message", id })
      continue
    }
    if (message.role === "toolResult") {
      const call = calls.get(message.toolCallId)
      if (call && call.part.state.status === "running") {
        completeCall(call.part, message)
        origins.push({ kind: "result", messageId: call.message.info.id, partId: call.part.id })
        continue
      }
    }
    if (!KNOWN_ROLES.has(message.role) && !PI_ROLES_NOT_READ.has(message.role) && !PI_ROLES_SENT_AS_USER.has(message.role)) unknownRoles.push(message.role)
    origins.push({ kind: "opaque" })
  }

  return {
    messages,
    unknownRoles,
    rebuild: (edited) => rebuildPi(pi, origins, edited),
  }
}

function userParts(message: PiUser, owner: { sessionID: string; messageID: string }): Part[] {
  const blocks: PiContent[] = typeof message.content === "string" ? [{ type: "text", text: message.content }] : message.content
  return blocks.map((block, index): Part => {
    const id = `${owner.messageID}_${index}`
    if (block.type === "text") return { id, ...owner, type: "text", text: block.text }
    return { id, ...owner, type: "file", mime: block.mimeType, filename: "image", url: omittedDataUrl(block.mimeType, block.data.length) }
  })
}

function assistantInfo(message: PiAssistant, ids: { id: string; sessionID: string; parentID: string }): AssistantMessage {
  const usage = message.usage
  return {
    ...ids,
    role: "assistant",
    time: { created: message.timestamp, completed: message.timestamp },
    modelID: message.model,
    providerID: message.provider,
    mode: "pi",
    path: { cwd: "/", root: "/" },
    cost: usage.cost.total,
    tokens: { input: usage.input, output: usage.output, reasoning: 0, cache: { read: usage.cacheRead, write: usage.cacheWrite } },
  }
}

function assistantPart(block: PiAssistant["content"][number], ids: { id: string; sessionID: string; messageID: string; at: number }): Part {
  const { id, sessionID, messageID, at } = ids
  if (block.type === "text") return { id, sessionID, messageID, type: "text", text: block.text }
  if (block.type === "thinking") return { id, sessionID, messageID, type: "reasoning", text: block.thinking, time: { start: at, end: at } }
  const input = block.arguments !== null && typeof block.arguments === "object" ? (block.arguments as Record<string, unknown>) : {}
  return { id, sessionID, messageID, type: "tool", callID: block.id, tool: block.name, state: { status: "running", input, time: { start: at } } }
}

function completeCall(part: ToolPart, result: PiToolResult): void {
  const input = part.state.input
  const time = { start: part.state.status === "running" ? part.state.time.start : result.timestamp, end: result.timestamp }
  const output = resultText(result)
  part.state = result.isError
    ? { status: "error", input, error: output, time }
    : { status: "completed", input, output, title: part.tool, metadata: {}, time }
}

/** A tool result's content as one text: its text blocks joined by newlines, an image as `[image]`. */
function resultText(result: PiToolResult): string {
  return result.content.map((block) => (block.type === "text" ? block.text : "[image]")).join("\n")
}

/**
 * Pi's list from the edited host messages, in Pi's order: a message whose host message was removed (folded into
 * history) is left out with its tool results; a message the engine inserted goes where it was inserted, after the tool
 * results of the message before it (a user message between a call and its result would break the provider's protocol).
 */
function rebuildPi(pi: readonly PiMessage[], origins: readonly Origin[], edited: readonly HostMessage[]): PiMessage[] {
  const original = new Set(origins.flatMap((origin) => (origin.kind === "message" ? [origin.id] : [])))
  const byId = new Map(edited.map((message) => [message.info.id, message]))
  // The engine's own messages, keyed by the original message they follow (null: before the first).
  const inserted = new Map<string | null, HostMessage[]>()
  let anchor: string | null = null
  for (const message of edited) {
    if (original.has(message.info.id)) {
      anchor = message.info.id
      continue
    }
    const list = inserted.get(anchor) ?? []
    list.push(message)
    inserted.set(anchor, list)
  }

  const out: PiMessage[] = []
  const emitInserted = (after: string | null, at: number): void => {
    for (const message of inserted.get(after) ?? []) out.push(insertedMessage(message, at))
  }
  emitInserted(null, pi[0]?.timestamp ?? 0)
  let pending: string | null = null
  pi.forEach((message, index) => {
    const origin = origins[index] ?? { kind: "opaque" }
    const belongsToPending = origin.kind === "result" && origin.messageId === pending
    if (pending !== null && !belongsToPending) {
      emitInserted(pending, message.timestamp)
      pending = null
    }
    if (origin.kind === "opaque") {
      out.push(message)
      return
    }
    if (origin.kind === "result") {
      const host = byId.get(origin.messageId)
      if (!host) return
      out.push(rebuiltResult(message as PiToolResult, host.parts.find((part) => part.id === origin.partId)))
      return
    }
    const host = byId.get(origin.id)
    if (!host) return
    if (message.role === "user") out.push(rebuiltUser(message, host))
    else if (message.role === "assistant") out.push(rebuiltAssistant(message, host))
    else out.push(rebuiltOwn(message, host))
    pending = origin.id
  })
  if (pending !== null) emitInserted(pending, pi[pi.length - 1]?.timestamp ?? 0)
  return out
}

/** A message the engine inserted (the session history, a reminder): a user message of its text parts. */
function insertedMessage(message: HostMessage, timestamp: number): PiUser {
  const content = message.parts.flatMap((part) => (part.type === "text" ? [{ type: "text" as const, text: part.text }] : []))
  return { role: "user", content, timestamp }
}

function rebuiltUser(message: PiUser, host: HostMessage): PiUser {
  const blocks: PiContent[] = typeof message.content === "string" ? [{ type: "text", text: message.content }] : message.content
  const byPart = new Map(blocks.map((block, index) => [`${host.info.id}_${index}`, block]))
  const content = host.parts.flatMap((part): PiContent[] => {
    if (part.type === "text") return [{ type: "text", text: part.text }]
    const block = byPart.get(part.id)
    return part.type === "file" && block ? [block] : []
  })
  // A message Pi wrote as a plain string stays one when it is still plain text.
  const only = content[0]
  if (typeof message.content === "string" && content.length === 1 && only?.type === "text") return { ...message, content: only.text }
  return { ...message, content }
}

/**
 * One of Pi's own kinds of message after the engine's edit. Unchanged, it is Pi's message as it was. Changed (a tag),
 * an extension's message keeps its role with the new content; the others become the user message Pi would have sent
 * for them with the edit in it (they hold no content of their own to edit).
 */
function rebuiltOwn(message: PiMessage, host: HostMessage): PiMessage {
  const sent: PiUser = { role: "user", content: piSentAsUserContent(message as PiSentAsUserMessage) as PiContent[], timestamp: message.timestamp }
  const rebuilt = rebuiltUser(sent, host)
  if (JSON.stringify(rebuilt.content) === JSON.stringify(sent.content)) return message
  return message.role === "custom" ? { ...message, content: rebuilt.content } : rebuilt
}

function rebuiltAssistant(message: PiAssistant, host: HostMessage): PiAssistant {
  const byPart = new Map(message.content.map((block, index) => [`${host.info.id}_${index}`, block]))
  const content = host.parts.flatMap((part): PiAssistant["content"] => {
    const block = byPart.get(part.id)
    if (part.type === "text") return [block?.type === "text" ? { ...block, text: part.text } : { type: "text", text: part.text }]
    if (part.type === "reasoning" && block?.type === "thinking") return [{ ...block, thinking: part.text }]
    if (part.type === "tool" && block?.type === "toolCall") return [{ ...block, arguments: part.state.input }]
    return []
  })
  return { ...message, content }
}

/**
 * A tool result from its edited part. Unchanged, it is Pi's message as it was. When the edit only added text around
 * it (a tag before, a reminder after) the additions go before the first block and after the last, and images stay;
 * otherwise (a dropped result, a rewritten one) the text replaces the content.
 */
function rebuiltResult(message: PiToolResult, part: Part | undefined): PiToolResult {
  if (!part || part.type !== "tool") return message
  const state = part.state
  const text = state.status === "completed" ? state.output : state.status === "error" ? state.error : null
  const before = resultText(message)
  if (text === null || text === before) return message
  const at = before.length > 0 ? text.indexOf(before) : -1
  if (at === -1) return { ...message, content: [{ type: "text", text }] }
  const prefix = text.slice(0, at)
  const suffix = text.slice(at + before.length)
  let content = [...message.content]
  if (prefix.length > 0) {
    const [first, ...rest] = content
    content = first?.type === "text" ? [{ ...first, text: prefix + first.text }, ...rest] : [{ type: "text", text: prefix.trimEnd() }, ...content]
  }
  if (suffix.length > 0) {
    const last = content[content.length - 1]
    content = last?.type === "text" ? [...content.slice(0, -1), { ...last, text: last.text + suffix }] : [...content, { type: "text", text: suffix.trimStart() }]
  }
  return { ...message, content }
}
