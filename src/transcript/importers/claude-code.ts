import { z } from "zod"
import type { ModelRef, Transcript, Turn, TurnPart } from "../turn-model.js"
import { toEpochMs } from "./epoch-ms.js"
import { pickMajorityModel } from "./majority-model.js"
import { omittedDataUrl } from "./omitted-data-url.js"
import { parseJson, parseRecord, splitJsonLines, type RecordLocation } from "./parse-record.js"
import { assertSingleTrajectory } from "./single-trajectory.js"
import { createMessageQueue, type AttachedMessage, type MessageQueue } from "./claude-code-queue.js"
import { attachmentText, CLAUDE_CODE_RECORD_TYPES, unreadAttachmentKind } from "./claude-code-records.js"

/**
 * Reads a Claude Code session (JSONL, one content block per `assistant` record). Turn K is line K.
 *
 * Mapping decisions:
 * - All assistant records of one model response (same `message.id`) form ONE assistant turn indexed by the first
 *   record's line. Claude Code writes parallel tool calls as call, result, call, result, ...; the later calls of the
 *   response still join that first turn, and each `tool_result` record stays its own `tool` turn after it.
 * - `progress`, `file-history-snapshot`, `system` (including `compact_boundary`), `summary`, titles, modes and
 *   `last-prompt` records are bookkeeping, not turns (`CLAUDE_CODE_BOOKKEEPING`). A record type the importer does not
 *   know is skipped and counted in `skippedRecords`, never a reason to refuse the file.
 * - An `attachment` record is text Claude Code sends with the next model call (a hook's added context, a message
 *   queued mid-turn, a file edited outside the agent; `attachmentText`): it joins the last turn before that call, as
 *   queued messages do. An attachment of a kind the importer does not read is counted as `attachment:<kind>`.
 * - A message the user typed while the agent worked, and that Claude Code attached to its next model call mid-turn,
 *   lives only in `queue-operation` records (see `createMessageQueue`). It is imported once, as the user text the model
 *   read (`attachedMessageText`), at the end of the last turn before the next model response: the tool results it was
 *   sent with. That turn lists the enqueue record in `mergedRecords`. A queued message that a later user record carries
 *   (a prompt run at idle, a task notification) comes from that record only.
 * - `isSidechain` records belong to a subagent's own conversation, not the main context: skipped.
 * - `isApiErrorMessage` assistant records are error notices Claude Code writes itself (model `<synthetic>`): skipped.
 * - `isMeta` user records are text the harness injects (caveats, skill bodies); the model sees them, so they are user
 *   turns with `synthetic` text.
 * - The `isCompactSummary` record after a compaction is the continuation summary the model resumes from: a normal
 *   user text turn.
 * - A user record with `tool_result` blocks is a `tool` turn; text and media blocks beside them (what the user sent
 *   with the results, e.g. when rejecting a tool use) are kept after the results as the user's own parts.
 */
export function importClaudeCode(text: string, options: { file: string; trajectory?: number }): Transcript {
  assertSingleTrajectory("claude-code", options)
  const file = options.file
  const turns: Turn[] = []
  const assistantModels: ModelRef[] = []
  const toolNames = new Map<string, string>()
  const queue = createMessageQueue()
  let sessionId: string | null = null
  let openResponse: { messageId: string; turn: Turn } | null = null
  const skippedRecords: Record<string, number> = {}
  const skip = (kind: string): void => {
    skippedRecords[kind] = (skippedRecords[kind] ?? 0) + 1
  }
  let harnessAttachments: HarnessAttachment[] = []

  for (const { line, text: lineText } of splitJsonLines(text)) {
    const location: RecordLocation = { file, record: line }
    const record = parseRecord(RecordSchema, parseJson(lineText, location), location)
    sessionId ??= record.sessionId ?? null
    if (!CLAUDE_CODE_RECORD_TYPES.has(record.type)) {
      skip(record.type)
      continue
    }
    if (record.type === "queue-operation") {
      followQueue(queue, record, line)
      continue
    }
    if (record.type !== "user" && record.type !== "assistant" && record.type !== "attachment") continue
    if (record.isSidechain === true) continue
    if (record.type === "attachment") {
      const read = attachmentText(record.attachment)
      if (read?.from === "user") queue.attachedByRecord({ record: line, content: read.text })
      else if (read) harnessAttachments.push({ record: line, text: read.text })
      const unread = unreadAttachmentKind(record.attachment)
      if (unread !== null) skip(unread)
      continue
    }
    const time = toEpochMs(record.timestamp)

    if (record.type === "assistant") {
      if (record.isApiErrorMessage === true) continue
      const message = parseRecord(AssistantMessageSchema, record.message, location, ["message"])
      const parts = convertAssistantBlocks(message.content, { location, toolNames })
      if (openResponse !== null && openResponse.messageId === message.id) {
        openResponse.turn.parts.push(...parts)
        openResponse.turn.mergedRecords = [...(openResponse.turn.mergedRecords ?? []), line]
        continue
      }
      // A new model call: the messages attached to it were sent after the last turn so far.
      deliverAttached(turns, queue.takeAttached(), harnessAttachments)
      harnessAttachments = []
      const turn: Turn = { index: line, role: "assistant", time, parts }
      turns.push(turn)
      openResponse = { messageId: message.id, turn }
      if (message.model !== undefined && message.model !== "<synthetic>") {
        assistantModels.push({ providerID: "anthropic", modelID: message.model })
      }
      continue
    }

    const message = parseRecord(UserMessageSchema, record.message, location, ["message"])
    for (const delivered of userRecordTexts(message.content)) queue.deliveredInRecord(delivered)
    const synthetic = record.isMeta === true
    const turn = convertUserMessage(message.content, { index: line, time, synthetic, location, toolNames })
    if (turn === null) continue
    // A user text turn ends the model response; tool results belong to it and keep it open.
    if (turn.role === "user") openResponse = null
    turns.push(turn)
  }

  // One model response whose records all carried skipped block types leaves an empty turn behind.
  const contentTurns = turns.filter((turn) => turn.parts.length > 0)
  return {
    format: "claude-code",
    file,
    trajectory: null,
    id: sessionId ?? file,
    model: pickMajorityModel(assistantModels),
    system: null,
    turns: contentTurns,
    ...(Object.keys(skippedRecords).length > 0 ? { skippedRecords } : {}),
  }
}

/** Text the harness attached to the next model call (`attachmentText`), with its record. */
type HarnessAttachment = { record: number; text: string }

const RecordSchema = z.looseObject({
  type: z.string(),
  operation: z.string().optional(),
  content: z.unknown().optional(),
  sessionId: z.string().optional(),
  timestamp: z.string().optional(),
  isSidechain: z.boolean().optional(),
  isMeta: z.boolean().optional(),
  isApiErrorMessage: z.boolean().optional(),
  message: z.unknown().optional(),
  attachment: z.unknown().optional(),
})

const BlockSchema = z.looseObject({ type: z.string() })

const AssistantMessageSchema = z.looseObject({
  id: z.string(),
  model: z.string().optional(),
  content: z.array(BlockSchema),
})

const UserMessageSchema = z.looseObject({ content: z.union([z.string(), z.array(BlockSchema)]) })

const TextBlockSchema = z.looseObject({ text: z.string() })
const ThinkingBlockSchema = z.looseObject({ thinking: z.string() })
const ToolUseBlockSchema = z.looseObject({ id: z.string(), name: z.string(), input: z.unknown() })
const MediaBlockSchema = z.looseObject({
  source: z.looseObject({ media_type: z.string().optional(), data: z.string().optional(), url: z.string().optional() }),
})
const ToolResultBlockSchema = z.looseObject({
  tool_use_id: z.string(),
  content: z.union([z.string(), z.array(BlockSchema)]).optional(),
  is_error: z.boolean().optional(),
})

type Block = z.output<typeof BlockSchema>

function convertAssistantBlocks(
  blocks: ReadonlyArray<Block>,
  context: { location: RecordLocation; toolNames: Map<string, string> },
): TurnPart[] {
  return blocks.flatMap((block, blockIndex): TurnPart[] => {
    const check = <Schema extends z.ZodType>(schema: Schema): z.output<Schema> =>
      parseRecord(schema, block, context.location, ["message", "content", blockIndex])
    if (block.type === "text") return [{ type: "text", text: check(TextBlockSchema).text }]
    if (block.type === "thinking") return [{ type: "reasoning", text: check(ThinkingBlockSchema).thinking }]
    if (block.type === "tool_use") {
      const toolUse = check(ToolUseBlockSchema)
      context.toolNames.set(toolUse.id, toolUse.name)
      return [{ type: "tool-call", callId: toolUse.id, tool: toolUse.name, input: toolUse.input }]
    }
    // redacted_thinking carries no readable text; server-side tool blocks are not produced by this harness's tools.
    return []
  })
}

function convertUserMessage(
  content: string | ReadonlyArray<Block>,
  context: {
    index: number
    time: number | null
    synthetic: boolean
    location: RecordLocation
    toolNames: Map<string, string>
  },
): Turn | null {
  const turn = { index: context.index, time: context.time }
  if (typeof content === "string") return { ...turn, role: "user", parts: [textPart(content, context.synthetic)] }
  const hasToolResults = content.some((block) => block.type === "tool_result")
  const parts = content.flatMap((block, blockIndex): TurnPart[] => {
    const check = <Schema extends z.ZodType>(schema: Schema): z.output<Schema> =>
      parseRecord(schema, block, context.location, ["message", "content", blockIndex])
    if (block.type === "text") return [textPart(check(TextBlockSchema).text, context.synthetic)]
    if (block.type === "image" || block.type === "document") return [mediaPart(check(MediaBlockSchema), block.type)]
    // Other block types carry nothing this model has a part for; they are left out.
    if (block.type !== "tool_result") return []
    const result = check(ToolResultBlockSchema)
    // An orphan result (its tool_use is not in the file) keeps its call id and gets the tool name "unknown"; the
    // converter downstream tolerates results without a call.
    const tool = context.toolNames.get(result.tool_use_id) ?? "unknown"
    return [
      {
        type: "tool-result",
        callId: result.tool_use_id,
        tool,
        output: toolResultOutput(result.content),
        isError: result.is_error === true,
      },
    ]
  })
  if (parts.length === 0) return null
  return { ...turn, role: hasToolResults ? "tool" : "user", parts }
}

/** Follows one `queue-operation` record (see `createMessageQueue`); operations it does not know are ignored. */
function followQueue(queue: MessageQueue, record: z.output<typeof RecordSchema>, line: number): void {
  const content = typeof record.content === "string" ? record.content : null
  if (record.operation === "enqueue" && content !== null) queue.enqueue({ record: line, content })
  else if (record.operation === "dequeue") queue.dequeue()
  else if (record.operation === "remove") queue.remove({ record: line, content })
}

/**
 * Adds what was attached to a model call (queued messages, the harness's attachments) to the last turn before it (the
 * tool results they were sent with, or the user's own message), in record order; after an assistant turn, or at the
 * start, they are a user turn of their own at the first of their records.
 */
function deliverAttached(turns: Turn[], queued: readonly AttachedMessage[], harness: readonly HarnessAttachment[]): void {
  const deliveries = [
    ...queued.map((message) => ({ at: message.removed, record: message.enqueued, part: { type: "text", text: message.text } as TurnPart })),
    ...harness.map((attachment) => ({ at: attachment.record, record: attachment.record, part: { type: "text", text: attachment.text, synthetic: true } as TurnPart })),
  ].sort((a, b) => a.at - b.at)
  const first = deliveries[0]
  if (first === undefined) return
  const parts = deliveries.map((delivery) => delivery.part)
  const records = deliveries.map((delivery) => delivery.record)
  const last = turns[turns.length - 1]
  if (last === undefined || last.role === "assistant") {
    const merged = records.filter((record) => record !== first.at)
    turns.push({ index: first.at, role: "user", time: null, parts, ...(merged.length > 0 ? { mergedRecords: merged } : {}) })
    return
  }
  last.parts.push(...parts)
  last.mergedRecords = [...(last.mergedRecords ?? []), ...records].sort((a, b) => a - b)
}

/** The texts a user record carries: its string content, or its text blocks. */
function userRecordTexts(content: string | ReadonlyArray<Block>): string[] {
  if (typeof content === "string") return [content]
  return content.flatMap((block) => {
    const text = block.type === "text" ? TextBlockSchema.safeParse(block) : null
    return text?.success ? [text.data.text] : []
  })
}

function textPart(text: string, synthetic: boolean): TurnPart {
  return synthetic ? { type: "text", text, synthetic: true } : { type: "text", text }
}

function mediaPart(block: z.output<typeof MediaBlockSchema>, kind: string): TurnPart {
  const mime = block.source.media_type ?? (kind === "image" ? "image/*" : "application/octet-stream")
  const url = block.source.url ?? omittedDataUrl(mime, block.source.data?.length ?? 0)
  return { type: "file", mime, filename: kind, url }
}

function toolResultOutput(content: string | ReadonlyArray<Block> | undefined): string {
  if (content === undefined) return ""
  if (typeof content === "string") return content
  return content
    .map((block) => {
      if (block.type !== "text") return `[${block.type}]`
      const text = TextBlockSchema.safeParse(block)
      return text.success ? text.data.text : "[text]"
    })
    .join("\n")
}

