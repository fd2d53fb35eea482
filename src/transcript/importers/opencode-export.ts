import { z } from "zod"
import type { ModelRef, ToolResultPart, Transcript, Turn, TurnPart } from "../turn-model.js"
import { pickMajorityModel } from "./majority-model.js"
import { shortenDataUrl } from "./omitted-data-url.js"
import { parseJson, parseRecord, type RecordLocation } from "./parse-record.js"
import { assertSingleTrajectory } from "./single-trajectory.js"

/**
 * Reads the JSON printed by `opencode export <sessionID>`: `{ info: Session, messages: [{ info, parts }] }`.
 * Turn K is `messages[K]`. A finished tool part yields a tool-call and its tool-result in the same assistant turn; an
 * output OpenCode pruned (`state.time.compacted`) keeps its text and carries the time it was pruned as `prunedAt`.
 */
export function importOpencodeExport(text: string, options: { file: string; trajectory?: number }): Transcript {
  assertSingleTrajectory("opencode-export", options)
  const file = options.file
  const document = parseRecord(ExportSchema, parseJson(text, { file, record: null }), { file, record: null })

  const turns: Turn[] = []
  const assistantModels: ModelRef[] = []
  document.messages.forEach((entry, index) => {
    const location: RecordLocation = { file, record: index }
    const message = parseRecord(MessageSchema, entry, location)
    const parts = message.parts.flatMap((part, partIndex) => convertPart(part, location, ["parts", partIndex]))
    // A message that carries nothing the model would see (an assistant reply that failed before any output, a user
    // message whose parts were all ignored) is not a turn.
    if (parts.length === 0) return
    if (message.info.role === "assistant" && message.info.providerID && message.info.modelID) {
      assistantModels.push({ providerID: message.info.providerID, modelID: message.info.modelID })
    }
    turns.push({ index, role: message.info.role, time: message.info.time.created ?? null, parts })
  })

  return {
    format: "opencode-export",
    file,
    trajectory: null,
    id: document.info.id,
    model: pickMajorityModel(assistantModels) ?? sessionModel(document.info.model),
    system: null,
    turns,
  }
}

const ExportSchema = z.looseObject({
  info: z.looseObject({
    id: z.string(),
    model: z
      .looseObject({ providerID: z.string(), id: z.string().optional(), modelID: z.string().optional() })
      .optional(),
  }),
  messages: z.array(z.unknown()),
})

const MessageSchema = z.looseObject({
  info: z.looseObject({
    id: z.string(),
    role: z.enum(["user", "assistant"]),
    time: z.looseObject({ created: z.number().optional() }),
    providerID: z.string().optional(),
    modelID: z.string().optional(),
  }),
  parts: z.array(z.looseObject({ type: z.string() })),
})

const TextPartSchema = z.looseObject({
  text: z.string(),
  synthetic: z.boolean().optional(),
  ignored: z.boolean().optional(),
})
const ReasoningPartSchema = z.looseObject({ text: z.string() })
const FilePartSchema = z.looseObject({ mime: z.string(), filename: z.string().optional(), url: z.string() })
const ToolPartSchema = z.looseObject({
  callID: z.string(),
  tool: z.string(),
  state: z.discriminatedUnion("status", [
    z.looseObject({ status: z.literal("pending"), input: z.unknown() }),
    z.looseObject({ status: z.literal("running"), input: z.unknown() }),
    z.looseObject({
      status: z.literal("completed"),
      input: z.unknown(),
      output: z.string(),
      time: z.looseObject({ compacted: z.number().optional() }).optional(),
    }),
    z.looseObject({ status: z.literal("error"), input: z.unknown(), error: z.string() }),
  ]),
})

/** The text OpenCode sends to the model in place of a compaction part. */
const COMPACTION_PROMPT = "What did we do so far?"

function convertPart(
  part: { type: string },
  location: RecordLocation,
  path: ReadonlyArray<string | number>,
): TurnPart[] {
  switch (part.type) {
    case "text": {
      const text = parseRecord(TextPartSchema, part, location, path)
      // OpenCode leaves ignored parts out of the model request.
      if (text.ignored === true) return []
      if (text.synthetic === true) return [{ type: "text", text: text.text, synthetic: true }]
      return [{ type: "text", text: text.text }]
    }
    case "reasoning":
      return [{ type: "reasoning", text: parseRecord(ReasoningPartSchema, part, location, path).text }]
    case "file": {
      const filePart = parseRecord(FilePartSchema, part, location, path)
      const filename = filePart.filename ?? lastPathSegment(filePart.url)
      return [{ type: "file", mime: filePart.mime, filename, url: shortenDataUrl(filePart.url, filePart.mime) }]
    }
    case "tool":
      return convertToolPart(parseRecord(ToolPartSchema, part, location, path))
    case "compaction":
      return [{ type: "text", text: COMPACTION_PROMPT, synthetic: true }]
    default:
      // step-start, step-finish, snapshot, patch, agent, retry and subtask parts are bookkeeping the model does not
      // see as content; part types added by later OpenCode versions are skipped the same way.
      return []
  }
}

function convertToolPart(part: z.output<typeof ToolPartSchema>): TurnPart[] {
  const call: TurnPart = { type: "tool-call", callId: part.callID, tool: part.tool, input: part.state.input }
  const state = part.state
  if (state.status === "completed") {
    const result: ToolResultPart = { type: "tool-result", callId: part.callID, tool: part.tool, output: state.output, isError: false }
    // OpenCode pruned this output at `compacted`: later prompts carried its marker instead (see ToolResultPart).
    const prunedAt = state.time?.compacted
    return [call, prunedAt ? { ...result, prunedAt } : result]
  }
  if (state.status === "error") {
    return [call, { type: "tool-result", callId: part.callID, tool: part.tool, output: state.error, isError: true }]
  }
  return [call]
}

function sessionModel(model: { providerID: string; id?: string; modelID?: string } | undefined): ModelRef | null {
  const modelID = model?.id ?? model?.modelID
  if (model === undefined || modelID === undefined) return null
  return { providerID: model.providerID, modelID }
}

function lastPathSegment(url: string): string {
  if (url.startsWith("data:")) return "attachment"
  const segment = url.split(/[/\\]/).filter((piece) => piece !== "").pop()
  return segment ?? "attachment"
}
