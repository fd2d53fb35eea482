import { z } from "zod"
import type { ModelRef, Transcript, Turn, TurnPart } from "../turn-model.js"
import { toEpochMs } from "./epoch-ms.js"
import { pickMajorityModel } from "./majority-model.js"
import { omittedDataUrl } from "./omitted-data-url.js"
import { projectPiSession, type PiContextEdit, type PiEntry } from "./pi-projection.js"
import { isStatusReport, piSentAsUserContent, PI_ROLES_SENT_AS_USER, type PiSentAsUserMessage } from "./pi-sent-as-user.js"
import { parseJson, parseRecord, splitJsonLines, transcriptParseError, type RecordLocation } from "./parse-record.js"
import { assertSingleTrajectory } from "./single-trajectory.js"

/**
 * Message roles that are no turn: Pi 1.x records its prompt and tools as `system` messages, which its `context` event
 * leaves out and the session branch holds.
 */
export const PI_ROLES_NOT_READ: ReadonlySet<string> = new Set(["system"])

/**
 * Entry types of a Pi session that are no turn of their own: settings, usage and extension state, labels, and the
 * `context_edit`s the projection applies. (`compaction`, `branch_summary` and `custom_message` entries are turns: Pi
 * sends them to the model as user messages.)
 */
const PI_ENTRIES_NOT_TURNS: ReadonlySet<string> = new Set([
  "model_change",
  "thinking_level_change",
  "usage",
  "custom",
  "label",
  "session_info",
  "context_edit",
])

/** Entry types that are turns. */
const PI_ENTRIES_READ: ReadonlySet<string> = new Set(["message", "compaction", "branch_summary", "custom_message"])

/**
 * Reads a pi coding agent session (JSONL), 0.x and 1.x. Turn K is line K. Line 0 is the `session` header; the
 * entries that reach the model are chosen as Pi chooses them (see pi-projection.ts: the active branch, the newest
 * compaction's kept range, `context_edit` omissions and replacements) and read as Pi's `convertToLlm` sends them:
 * `message` entries with roles user / assistant / toolResult as they are, and what Pi sends as user messages of its
 * own making (pi-sent-as-user.ts: a compaction's or a branch's summary, an extension's `custom_message`, a `!` shell
 * run) as user turns of inserted (synthetic) text. The compaction summary comes first, as Pi sends it, though its
 * line follows the range it keeps. magic-context's own /ctx-status reports are left out, as its extension leaves them
 * out of every request. An entry type this importer does not know is skipped and counted in `skippedRecords`, never a
 * reason to refuse the file.
 */
export function importPi(text: string, options: { file: string; trajectory?: number }): Transcript {
  assertSingleTrajectory("pi", options)
  const file = options.file
  const lines = splitJsonLines(text)
  const first = lines[0]
  if (first === undefined) throw transcriptParseError({ file, record: null }, "the file holds no records")
  const headerLocation = { file, record: first.line }
  const header = parseRecord(SessionHeaderSchema, parseJson(first.text, headerLocation), headerLocation)

  const entries: PiEntry[] = []
  const skippedRecords: Record<string, number> = {}
  for (const { line, text: lineText } of lines.slice(1)) {
    const location: RecordLocation = { file, record: line }
    const record = parseRecord(RecordSchema, parseJson(lineText, location), location)
    if (record.type === "context_edit") parseRecord(ContextEditSchema, record, location)
    if (record.type === "compaction") parseRecord(CompactionSchema, record, location)
    // An entry of an unknown type stays in the tree (later entries may hang below it) but is no turn.
    if (!PI_ENTRIES_READ.has(record.type) && !PI_ENTRIES_NOT_TURNS.has(record.type)) skippedRecords[record.type] = (skippedRecords[record.type] ?? 0) + 1
    entries.push({ line, type: record.type, id: record.id ?? null, parentId: record.parentId ?? null, record })
  }

  const turns: Turn[] = []
  const assistantModels: ModelRef[] = []
  for (const { entry, edit } of projectPiSession(entries)) {
    if (!PI_ENTRIES_READ.has(entry.type) || edit?.kind === "omit") continue
    const location: RecordLocation = { file, record: entry.line }
    const time = toEpochMs(entry.record["timestamp"] as string | undefined)
    const own = sentAsUser(entry, edit, location)
    if (own !== undefined) {
      if (own !== null) turns.push({ index: entry.line, role: "user", time: own.time ?? time, parts: own.parts })
      continue
    }
    const role = (entry.record["message"] as { role?: unknown } | undefined)?.role
    if (typeof role === "string" && PI_ROLES_NOT_READ.has(role)) continue
    const message = parseRecord(MessageSchema, withReplacement(entry.record["message"], edit), location, ["message"])
    const turn = convertMessage(message, { index: entry.line, time: toEpochMs(message.timestamp) ?? time })
    if (turn === null) continue
    if (message.role === "assistant" && message.provider && message.model) {
      assistantModels.push({ providerID: message.provider, modelID: message.model })
    }
    turns.push(turn)
  }

  const headerModel =
    header.provider && header.modelId ? { providerID: header.provider, modelID: header.modelId } : null
  return {
    format: "pi",
    file,
    trajectory: null,
    id: header.id,
    model: pickMajorityModel(assistantModels) ?? headerModel,
    system: null,
    turns,
    ...(Object.keys(skippedRecords).length > 0 ? { skippedRecords } : {}),
  }
}

/**
 * The turn of an entry Pi sends as a user message of its own making (Pi's `sessionEntryToContextMessages`, then
 * `convertToLlm`): its inserted text, and the message's own time when it has one. Null when Pi sends nothing for it
 * (a `!!` run, a branch summary without text) or it is magic-context's status report; undefined for the entries that
 * are Pi's plain messages.
 */
function sentAsUser(entry: PiEntry, edit: PiContextEdit | null, location: RecordLocation): { parts: TurnPart[]; time: number | null } | null | undefined {
  const message = ownMessage(entry, location)
  if (message === undefined) return undefined
  if (message === null || isStatusReport(message)) return null
  // A replacement changes an extension's content only (Pi's projectContextEntry); the summaries keep theirs.
  const replaced = edit?.kind === "replace" && message.role === "custom" ? { ...message, content: edit.content } : message
  const content = parseRecord(SentContentSchema, piSentAsUserContent(replaced), location, entry.type === "message" ? ["message"] : [])
  if (content.length === 0) return null
  const parts = convertUserContent(content).map((part): TurnPart => (part.type === "text" ? { ...part, synthetic: true } : part))
  return { parts, time: toEpochMs(typeof message.timestamp === "number" ? message.timestamp : undefined) }
}

/** The message Pi makes of an entry of its own kinds; null when it makes none; undefined for Pi's plain messages. */
function ownMessage(entry: PiEntry, location: RecordLocation): (PiSentAsUserMessage & { customType?: unknown; timestamp?: unknown }) | null | undefined {
  const record = entry.record
  if (entry.type === "compaction") return { role: "compactionSummary", summary: record["summary"] }
  if (entry.type === "branch_summary") {
    const branch = parseRecord(BranchSummarySchema, record, location)
    return branch.summary ? { role: "branchSummary", summary: branch.summary } : null
  }
  if (entry.type === "custom_message") {
    const custom = parseRecord(CustomMessageSchema, record, location)
    return { role: "custom", customType: custom.customType, content: custom.content ?? [] }
  }
  const message = record["message"]
  if (typeof message !== "object" || message === null) return undefined
  // Pi migrates a session of version 2 on load: its `hookMessage` role is `custom` (an extension's message).
  const role = (message as { role?: unknown }).role === "hookMessage" ? "custom" : (message as { role?: unknown }).role
  if (typeof role !== "string" || !PI_ROLES_SENT_AS_USER.has(role)) return undefined
  if (role === "bashExecution") return parseRecord(BashExecutionSchema, message, location, ["message"])
  return { ...(message as PiSentAsUserMessage), role }
}

/**
 * The message as the model gets it after a `context_edit` replacement: only the content changes; a string replaces an
 * assistant's or a tool result's content as one text block (those roles hold blocks), as Pi does.
 */
function withReplacement(message: unknown, edit: PiContextEdit | null): unknown {
  if (edit === null || edit.kind !== "replace" || typeof message !== "object" || message === null) return message
  const role = (message as { role?: unknown }).role
  const content =
    (role === "assistant" || role === "toolResult") && typeof edit.content === "string" ? [{ type: "text", text: edit.content }] : edit.content
  return { ...message, content }
}

const SessionHeaderSchema = z.looseObject({
  type: z.literal("session", { error: 'expected the session header ({"type":"session"}) on the first line' }),
  id: z.string(),
  provider: z.string().optional(),
  modelId: z.string().optional(),
})

const RecordSchema = z.looseObject({
  type: z.string(),
  id: z.string().optional(),
  parentId: z.string().nullable().optional(),
  timestamp: z.string().optional(),
  message: z.unknown().optional(),
})

const ContextEditSchema = z.looseObject({
  targetId: z.string(),
  // null omits the target; an object replaces its content.
  replacement: z.union([z.null(), z.looseObject({ content: z.unknown() })]),
})

// A session of version 1 (no entry ids) names the first kept entry by its index among the file's lines.
const CompactionSchema = z
  .looseObject({ summary: z.string(), firstKeptEntryId: z.string().optional(), firstKeptEntryIndex: z.number().int().optional() })
  .refine((record) => record.firstKeptEntryId !== undefined || record.firstKeptEntryIndex !== undefined, {
    message: "expected a string (or, in a session of version 1, firstKeptEntryIndex: a number)",
    path: ["firstKeptEntryId"],
  })
const BranchSummarySchema = z.looseObject({ summary: z.string().optional() })
const CustomMessageSchema = z.looseObject({ customType: z.string(), content: z.unknown().optional() })
const BashExecutionSchema = z.looseObject({ role: z.literal("bashExecution"), command: z.string() })

const TextBlockSchema = z.looseObject({ type: z.literal("text"), text: z.string() })
const ImageBlockSchema = z.looseObject({ type: z.literal("image"), data: z.string(), mimeType: z.string() })
const ThinkingBlockSchema = z.looseObject({ type: z.literal("thinking"), thinking: z.string() })
const ToolCallBlockSchema = z.looseObject({
  type: z.literal("toolCall"),
  id: z.string(),
  name: z.string(),
  arguments: z.unknown(),
})
const UserContentSchema = z.union([
  z.string(),
  z.array(z.discriminatedUnion("type", [TextBlockSchema, ImageBlockSchema])),
])
/** What Pi sends for one of its own kinds of message: text and image blocks. */
const SentContentSchema = z.array(z.discriminatedUnion("type", [TextBlockSchema, ImageBlockSchema]))

const MessageSchema = z.discriminatedUnion("role", [
  z.looseObject({ role: z.literal("user"), content: UserContentSchema, timestamp: z.number().optional() }),
  z.looseObject({
    role: z.literal("assistant"),
    content: z.array(z.discriminatedUnion("type", [TextBlockSchema, ThinkingBlockSchema, ToolCallBlockSchema])),
    provider: z.string().optional(),
    model: z.string().optional(),
    usage: z.looseObject({ input: z.number(), output: z.number(), cacheRead: z.number(), cacheWrite: z.number() }).optional(),
    timestamp: z.number().optional(),
  }),
  z.looseObject({
    role: z.literal("toolResult"),
    toolCallId: z.string(),
    toolName: z.string(),
    content: UserContentSchema,
    isError: z.boolean(),
    timestamp: z.number().optional(),
  }),
])

type PiMessage = z.output<typeof MessageSchema>
type UserContent = z.output<typeof UserContentSchema>

function convertMessage(message: PiMessage, turn: { index: number; time: number | null }): Turn | null {
  if (message.role === "user") return { ...turn, role: "user", parts: convertUserContent(message.content) }
  if (message.role === "toolResult") {
    // pi names the tool on the result itself, so a result whose call is missing still carries the right tool name.
    const output = toolOutput(message.content)
    const part: TurnPart = {
      type: "tool-result",
      callId: message.toolCallId,
      tool: message.toolName,
      output,
      isError: message.isError,
    }
    return { ...turn, role: "tool", parts: [part] }
  }
  // An aborted request leaves an assistant message with no content; it is not a turn.
  if (message.content.length === 0) return null
  const parts = message.content.map((block): TurnPart => {
    if (block.type === "text") return { type: "text", text: block.text }
    if (block.type === "thinking") return { type: "reasoning", text: block.thinking }
    return { type: "tool-call", callId: block.id, tool: block.name, input: block.arguments }
  })
  const usage = message.usage ? { input: message.usage.input, output: message.usage.output, cacheRead: message.usage.cacheRead, cacheWrite: message.usage.cacheWrite } : undefined
  return { ...turn, role: "assistant", parts, ...(usage ? { usage } : {}) }
}

function convertUserContent(content: UserContent): TurnPart[] {
  if (typeof content === "string") return [{ type: "text", text: content }]
  return content.map((block): TurnPart => {
    if (block.type === "text") return { type: "text", text: block.text }
    const url = omittedDataUrl(block.mimeType, block.data.length)
    return { type: "file", mime: block.mimeType, filename: "image", url }
  })
}

function toolOutput(content: UserContent): string {
  if (typeof content === "string") return content
  return content.map((block) => (block.type === "text" ? block.text : "[image]")).join("\n")
}
