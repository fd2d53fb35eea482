import { z } from "zod"
import { PluginError } from "../../plugin-error.js"
import type { ModelRef, Transcript, Turn, TurnPart } from "../turn-model.js"
import { toEpochMs } from "./epoch-ms.js"
import { parseJson, parseRecord, splitJsonLines, type RecordLocation } from "./parse-record.js"

/**
 * Reads one trajectory of an OpenHands evaluation output (JSONL, one instance per line; `#N` picks line N, default 0).
 * Turn K is `history[K]` of that line.
 *
 * Mapping of the event stream:
 * - The agent `system` action is the system prompt (`Transcript.system`), not a turn.
 * - A user `message` action is a user turn; an agent `message` action is an assistant text turn.
 * - Every other agent action is a model tool call: an assistant turn with its `thought` as text and a tool-call part
 *   (tool = the action name, input = the action's `args`). This includes `think` and `finish` when the model emitted
 *   them through function calling (`tool_call_metadata` present); without it they are plain assistant text turns.
 * - An observation whose `cause` is such an action is a `tool` turn with its result (`"error"` observations: isError).
 * - An `error` observation with no cause is a failure OpenHands reports without running anything (e.g. a tool call
 *   with bad arguments); OpenHands sends it to the model as a user message, so it is a user turn with synthetic text.
 * - `recall` actions and observations are the harness's own workspace lookups; the prompt text OpenHands builds from
 *   them is not in the file, so they are not turns. Agent-state changes and null events are not turns either.
 */
export function importOpenhands(text: string, options: { file: string; trajectory?: number }): Transcript {
  const file = options.file
  const trajectory = options.trajectory ?? 0
  const lines = splitJsonLines(text)
  const selected = lines[trajectory]
  if (selected === undefined) throw trajectoryOutOfRange(file, trajectory, lines.length)

  const lineLocation: RecordLocation = { file, record: selected.line }
  const instance = parseRecord(InstanceSchema, parseJson(selected.text, lineLocation), lineLocation)
  const calls = new Map<number, { callId: string; tool: string }>()
  const textActions = new Set<number>()
  const turns: Turn[] = []
  let system: string | null = null

  instance.history.forEach((entry, index) => {
    const location: RecordLocation = { file, trajectory, record: index }
    const event = parseRecord(EventSchema, entry, location)
    const turn = { index, time: toEpochMs(event.timestamp) }

    if (event.action !== undefined) {
      if (event.action === "system") {
        system ??= stringArg(event.args, "content") ?? event.message ?? null
        return
      }
      if (SKIPPED_ACTIONS.has(event.action)) return
      if (event.source === "user" || (event.action === "message" && event.source !== "agent")) {
        const content = stringArg(event.args, "content") ?? event.message
        if (content) turns.push({ ...turn, role: "user", parts: [{ type: "text", text: content }] })
        return
      }
      if (event.action === "message" || (TEXT_ACTIONS.has(event.action) && !event.tool_call_metadata)) {
        textActions.add(event.id)
        const content = firstStringArg(event.args, ["content", "thought", "final_thought"]) ?? event.message
        if (content) turns.push({ ...turn, role: "assistant", parts: [{ type: "text", text: content }] })
        return
      }
      const callId = event.tool_call_metadata?.tool_call_id ?? `openhands-event-${event.id}`
      calls.set(event.id, { callId, tool: event.action })
      const thought = stringArg(event.args, "thought")
      const parts: TurnPart[] = thought ? [{ type: "text", text: thought }] : []
      parts.push({ type: "tool-call", callId, tool: event.action, input: event.args ?? {} })
      turns.push({ ...turn, role: "assistant", parts })
      return
    }

    const observation = event.observation ?? ""
    if (SKIPPED_OBSERVATIONS.has(observation)) return
    const output = event.content ?? event.message ?? ""
    const call = event.cause === undefined ? undefined : calls.get(event.cause)
    if (call !== undefined) {
      const result: TurnPart = { type: "tool-result", ...call, output, isError: observation === "error" }
      turns.push({ ...turn, role: "tool", parts: [result] })
      return
    }
    // The observation of a text action (a `think` without function calling) carries nothing the model reads.
    if (event.cause !== undefined && textActions.has(event.cause)) return
    if (output === "") return
    if (event.tool_call_metadata) {
      // An orphan result: its action is not in the history. It keeps its call id and gets the tool name "unknown";
      // the converter downstream tolerates results without a call.
      const callId = event.tool_call_metadata.tool_call_id
      const isError = observation === "error"
      const result: TurnPart = { type: "tool-result", callId, tool: "unknown", output, isError }
      turns.push({ ...turn, role: "tool", parts: [result] })
      return
    }
    turns.push({ ...turn, role: "user", parts: [{ type: "text", text: output, synthetic: true }] })
  })

  return {
    format: "openhands",
    file,
    trajectory,
    id: String(instance.instance_id),
    model: configuredModel(instance.metadata?.llm_config?.model),
    system,
    turns,
  }
}

const SKIPPED_ACTIONS: ReadonlySet<string> = new Set(["recall", "change_agent_state", "null"])
const SKIPPED_OBSERVATIONS: ReadonlySet<string> = new Set(["recall", "agent_state_changed", "null"])
const TEXT_ACTIONS: ReadonlySet<string> = new Set(["finish", "think"])

const InstanceSchema = z.looseObject({
  instance_id: z.union([z.string(), z.number()]),
  history: z.array(z.unknown()),
  metadata: z
    .looseObject({ llm_config: z.looseObject({ model: z.string().optional() }).nullish() })
    .nullish(),
})

const EventSchema = z
  .looseObject({
    id: z.number(),
    source: z.string().optional(),
    timestamp: z.string().optional(),
    message: z.string().optional(),
    action: z.string().optional(),
    args: z.record(z.string(), z.unknown()).optional(),
    observation: z.string().optional(),
    cause: z.number().nullish().transform((cause) => cause ?? undefined),
    content: z.string().optional(),
    tool_call_metadata: z.looseObject({ tool_call_id: z.string() }).nullish(),
  })
  .refine((event) => event.action !== undefined || event.observation !== undefined, {
    message: 'expected an "action" or an "observation" field',
  })

function stringArg(args: Record<string, unknown> | undefined, key: string): string | undefined {
  const value = args?.[key]
  return typeof value === "string" && value !== "" ? value : undefined
}

function firstStringArg(args: Record<string, unknown> | undefined, keys: ReadonlyArray<string>): string | undefined {
  for (const key of keys) {
    const value = stringArg(args, key)
    if (value !== undefined) return value
  }
  return undefined
}

/** `llm_config.model` is a LiteLLM name such as `openai/openrouter-llama-4-maverick`: provider, a slash, the model. */
function configuredModel(name: string | undefined): ModelRef | null {
  if (name === undefined || name === "") return null
  const slash = name.indexOf("/")
  if (slash === -1) return { providerID: "unknown", modelID: name }
  return { providerID: name.slice(0, slash), modelID: name.slice(slash + 1) }
}

function trajectoryOutOfRange(file: string, trajectory: number, count: number): PluginError {
  const range = count === 0 ? "it holds no trajectories" : `it holds ${count} (#0 to #${count - 1})`
  return new PluginError("trajectory_out_of_range", `${file}#${trajectory}: no such trajectory: ${range}`, {
    file,
    trajectory,
    trajectories: count,
  })
}
