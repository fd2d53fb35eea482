import { z } from "zod"
import type { ModelRef, Transcript, Turn, TurnPart } from "../turn-model.js"
import { toEpochMs } from "./epoch-ms.js"
import { pickMajorityModel } from "./majority-model.js"
import { omittedDataUrl } from "./omitted-data-url.js"
import { parseJson, parseRecord, splitJsonLines, transcriptParseError, type RecordLocation } from "./parse-record.js"
import { assertSingleTrajectory } from "./single-trajectory.js"

/**
 * Pi's own message roles the engine does not read (a bash run the user started with `!`, an extension's message, Pi's
 * summaries): Pi turns them into text for the model. Live, the extension passes them through untouched; a replay
 * leaves them out the same way, so both render the same prompts.
 */
export const PI_ROLES_NOT_READ: ReadonlySet<string> = new Set(["bashExecution", "custom", "branchSummary", "compactionSummary"])

/**
 * Reads a pi coding agent session (JSONL). Turn K is line K. Line 0 is the `session` header; `message` records with
 * roles user / assistant / toolResult are turns; `thinking_level_change` and `model_change` records are not.
 */
export function importPi(text: string, options: { file: string; trajectory?: number }): Transcript {
  assertSingleTrajectory("pi", options)
  const file = options.file
  const lines = splitJsonLines(text)
  const first = lines[0]
  if (first === undefined) throw transcriptParseError({ file, record: null }, "the file holds no records")
  const headerLocation = { file, record: first.line }
  const header = parseRecord(SessionHeaderSchema, parseJson(first.text, headerLocation), headerLocation)

  const turns: Turn[] = []
  const assistantModels: ModelRef[] = []
  for (const { line, text: lineText } of lines.slice(1)) {
    const location: RecordLocation = { file, record: line }
    const record = parseRecord(RecordSchema, parseJson(lineText, location), location)
    // Only `message` records are turns. `thinking_level_change` and `model_change` are settings; record types added
    // by later pi versions (compaction, branch summaries, custom entries) are skipped the same way.
    if (record.type !== "message") continue
    const role = (record.message as { role?: unknown } | undefined)?.role
    if (typeof role === "string" && PI_ROLES_NOT_READ.has(role)) continue
    const message = parseRecord(MessageSchema, record.message, location, ["message"])
    const time = toEpochMs(message.timestamp) ?? toEpochMs(record.timestamp)
    const turn = convertMessage(message, { index: line, time })
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
  }
}

const SessionHeaderSchema = z.looseObject({
  type: z.literal("session", { error: 'expected the session header ({"type":"session"}) on the first line' }),
  id: z.string(),
  provider: z.string().optional(),
  modelId: z.string().optional(),
})

const RecordSchema = z.looseObject({
  type: z.string(),
  timestamp: z.string().optional(),
  message: z.unknown().optional(),
})

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
