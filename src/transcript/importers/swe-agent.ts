import { z } from "zod"
import type { Transcript, Turn, TurnPart } from "../turn-model.js"
import { parseJson, parseRecord, type RecordLocation } from "./parse-record.js"
import { assertSingleTrajectory } from "./single-trajectory.js"

/**
 * Reads a SWE-agent `.traj` file. Turn K is `history[K]`. System messages form `Transcript.system`; each assistant
 * message is its thought plus one tool call (tool = the command's first word, input = `{ command }`), and the user
 * message that answers it is a `tool` turn with the observation. Other user messages (the demonstration, the task,
 * format-error notices after a reply without a command) are user turns.
 */
export function importSweAgent(text: string, options: { file: string; trajectory?: number }): Transcript {
  assertSingleTrajectory("swe-agent", options)
  const file = options.file
  const fileLocation: RecordLocation = { file, record: null }
  const document = parseRecord(TrajectorySchema, parseJson(text, fileLocation), fileLocation)

  const turns: Turn[] = []
  const systemPrompts: string[] = []
  let pendingCall: { callId: string; tool: string } | null = null

  document.history.forEach((entry, index) => {
    const message = parseRecord(MessageSchema, entry, { file, record: index })
    const content = contentText(message.content)
    if (message.role === "system") {
      systemPrompts.push(content)
      return
    }
    if (message.role === "assistant") {
      const action = message.action ?? lastFencedBlock(content)
      const thought = message.thought ?? withoutLastFencedBlock(content)
      const parts: TurnPart[] = thought.trim() === "" ? [] : [{ type: "text", text: thought }]
      pendingCall = null
      if (action !== undefined && action.trim() !== "") {
        pendingCall = { callId: message.tool_calls?.[0]?.id ?? `swe-agent-${index}`, tool: commandName(action) }
        parts.push({ type: "tool-call", ...pendingCall, input: { command: action } })
      }
      if (parts.length > 0) turns.push({ index, role: "assistant", time: null, parts })
      return
    }
    if (pendingCall !== null && message.is_demo !== true) {
      const result: TurnPart = { type: "tool-result", ...pendingCall, output: content, isError: false }
      turns.push({ index, role: "tool", time: null, parts: [result] })
      pendingCall = null
      return
    }
    if (content !== "") turns.push({ index, role: "user", time: null, parts: [{ type: "text", text: content }] })
  })

  return {
    format: "swe-agent",
    file,
    trajectory: null,
    id: document.info?.instance_id ?? instanceIdFromFile(file),
    // A v0 trajectory does not name its model (only `info.model_stats` with costs).
    model: null,
    system: systemPrompts.length === 0 ? null : systemPrompts.join("\n\n"),
    turns,
  }
}

const TrajectorySchema = z.looseObject({
  history: z.array(z.unknown()),
  info: z.looseObject({ instance_id: z.string().optional() }).optional(),
})

const MessageSchema = z.looseObject({
  // `tool` is SWE-agent 1.x's role for observations under function calling; it is read like a v0 observation.
  role: z.enum(["system", "user", "assistant", "tool"]),
  content: z.union([z.string(), z.array(z.looseObject({ type: z.string(), text: z.string().optional() }))]),
  thought: z.string().optional(),
  action: z.string().optional(),
  is_demo: z.boolean().optional(),
  tool_calls: z.array(z.looseObject({ id: z.string() })).nullish(),
})

function contentText(content: z.output<typeof MessageSchema>["content"]): string {
  if (typeof content === "string") return content
  return content.map((block) => block.text ?? `[${block.type}]`).join("\n")
}

const FENCED_BLOCK = /```[^\n]*\n([\s\S]*?)```/g

function lastFencedBlock(content: string): string | undefined {
  const blocks = [...content.matchAll(FENCED_BLOCK)]
  return blocks.at(-1)?.[1]
}

function withoutLastFencedBlock(content: string): string {
  const blocks = [...content.matchAll(FENCED_BLOCK)]
  const last = blocks.at(-1)
  if (last === undefined) return content
  return content.slice(0, last.index) + content.slice(last.index + last[0].length)
}

function commandName(action: string): string {
  return action.trim().split(/\s+/)[0] ?? action
}

function instanceIdFromFile(file: string): string {
  const name = file.split(/[/\\]/).pop() ?? file
  return name.replace(/\.traj$/, "")
}
