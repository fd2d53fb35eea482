import type { HostAssistantInfo as AssistantMessage, HostMessage, HostPart as Part, HostToolPart as ToolPart, HostUserInfo as UserMessage } from "./host-message.js"
import type { ModelRef, ToolCallPart, ToolResultPart, Transcript, Turn, TurnPart, TurnUsage } from "./turn-model.js"

/**
 * Rebuilds the OpenCode message list a live session would have had, one transcript turn at a time, so the
 * engine can replay any transcript through the same pass as a live session. Ids are derived from the turn
 * index, so the same transcript always gives the same messages.
 */
export type HostTranscriptBuilder = {
  append(turn: Turn): void
  /**
   * Copies of the messages so far, as OpenCode hands them to the transform. Each message, part and tool state is
   * a new object, so the edits a pass applies (text, tool output, the parts array) never reach the builder;
   * deeper values (`info.time`, tool inputs, metadata) are shared and must not be mutated.
   */
  snapshot(): HostMessage[]
}

/**
 * Creates a builder for `transcript`; `sessionID` names the replayed session. A `tool` turn's results complete the
 * calls of earlier messages, and whatever else it carries (text or files the user sent with the results) becomes a
 * user message after them. An output the host pruned (`prunedAt`) reads as pruned in every snapshot taken once a turn
 * created at or after that time was appended: OpenCode prunes when the loop ends, before the next user message.
 */
export function createHostTranscriptBuilder(
  transcript: Transcript,
  sessionID: string,
  /** Put the usage the transcript records on its assistant messages (the engine calibrates against it). */
  options: { usage?: boolean } = {},
): HostTranscriptBuilder {
  const model: ModelRef = transcript.model ?? { providerID: "replay", modelID: "unknown" }
  const messages: HostMessage[] = []
  const toolParts = new Map<string, ToolPart>()
  let pendingPrunes: { tool: ToolPart; at: number }[] = []
  let lastUserId = ""

  const base = (turn: Turn, role: string): { id: string; created: number } => ({
    id: `msg_${role}_${String(turn.index).padStart(7, "0")}`,
    created: turn.time ?? turn.index,
  })

  const appendUser = (turn: Turn, include: (part: TurnPart) => boolean): void => {
    const { id, created } = base(turn, "user")
    const info: UserMessage = { id, sessionID, role: "user", time: { created }, agent: "build", model }
    lastUserId = id
    messages.push({ info, parts: convertParts(turn, id, include) })
  }

  const appendAssistant = (turn: Turn, include: (part: TurnPart) => boolean): void => {
    const { id, created } = base(turn, "assistant")
    const info: AssistantMessage = {
      id,
      sessionID,
      role: "assistant",
      time: { created, completed: created },
      parentID: lastUserId,
      modelID: model.modelID,
      providerID: model.providerID,
      mode: "build",
      path: { cwd: "/", root: "/" },
      cost: 0,
      tokens: recordedTokens(options.usage === true ? turn.usage : undefined),
    }
    messages.push({ info, parts: convertParts(turn, id, include) })
  }

  const finish = (tool: ToolPart, result: ToolResultPart, at: number): void => {
    complete(tool, result, at)
    if (result.prunedAt !== undefined && !result.isError) pendingPrunes.push({ tool, at: result.prunedAt })
  }

  // Part ids come from the part's position in its turn, so the messages one turn yields never share an id.
  const convertParts = (turn: Turn, messageID: string, include: (part: TurnPart) => boolean): Part[] => {
    const at = turn.time ?? turn.index
    const parts: Part[] = []
    turn.parts.forEach((part, position) => {
      if (!include(part)) return
      const existing = part.type === "tool-result" ? toolParts.get(part.callId) : undefined
      if (existing && part.type === "tool-result") {
        finish(existing, part, at)
        return
      }
      const id = `prt_${String(turn.index).padStart(7, "0")}_${String(position).padStart(3, "0")}`
      const converted = convertPart(part, { id, sessionID, messageID, created: at })
      if (converted.type === "tool") toolParts.set(converted.callID, converted)
      // A result with no earlier call (orphan) is kept as a finished call with an unknown input.
      if (converted.type === "tool" && part.type === "tool-result") finish(converted, part, at)
      parts.push(converted)
    })
    return parts
  }

  const appendResults = (turn: Turn): void => {
    const isOrphan = (part: TurnPart): boolean => part.type === "tool-result" && !toolParts.has(part.callId)
    const isResult = (part: TurnPart): boolean => part.type === "tool-result"
    const orphans = turn.parts.filter(isOrphan)
    for (const part of turn.parts) {
      const tool = part.type === "tool-result" ? toolParts.get(part.callId) : undefined
      if (tool && part.type === "tool-result") finish(tool, part, turn.time ?? turn.index)
    }
    if (orphans.length > 0) appendAssistant(turn, (part) => orphans.includes(part))
    if (turn.parts.some((part) => !isResult(part))) appendUser(turn, (part) => !isResult(part))
  }

  const applyPrunes = (now: number): void => {
    const due = pendingPrunes.filter((prune) => prune.at <= now)
    if (due.length === 0) return
    pendingPrunes = pendingPrunes.filter((prune) => prune.at > now)
    for (const { tool, at } of due) {
      const state = tool.state
      // A new state object: earlier snapshots share the old one and keep showing the output.
      if (state.status === "completed") tool.state = { ...state, time: { ...state.time, compacted: at } }
    }
  }

  const all = (): boolean => true
  return {
    append(turn) {
      if (turn.role === "user") appendUser(turn, all)
      else if (turn.role === "assistant") appendAssistant(turn, all)
      else appendResults(turn)
      if (turn.time !== null) applyPrunes(turn.time)
    },
    snapshot() {
      return messages.map((message) => ({ info: { ...message.info }, parts: message.parts.map(copyPart) }))
    },
  }
}

function recordedTokens(usage: TurnUsage | undefined): AssistantMessage["tokens"] {
  if (!usage) return { input: 0, output: 0, reasoning: 0, cache: { read: 0, write: 0 } }
  return { input: usage.input, output: usage.output, reasoning: 0, cache: { read: usage.cacheRead, write: usage.cacheWrite } }
}

function convertPart(
  part: TurnPart,
  ids: { id: string; sessionID: string; messageID: string; created: number },
): Part {
  const { id, sessionID, messageID, created } = ids
  switch (part.type) {
    case "text":
      return { id, sessionID, messageID, type: "text", text: part.text, ...(part.synthetic ? { synthetic: true } : {}) }
    case "reasoning":
      return { id, sessionID, messageID, type: "reasoning", text: part.text, time: { start: created, end: created } }
    case "file":
      return { id, sessionID, messageID, type: "file", mime: part.mime, filename: part.filename, url: part.url }
    case "tool-call":
      return runningTool(ids, part.callId, part.tool, toolInput(part))
    case "tool-result":
      // An orphan result: the caller completes this call with the result.
      return runningTool(ids, part.callId, part.tool, {})
  }
}

function runningTool(
  ids: { id: string; sessionID: string; messageID: string; created: number },
  callID: string,
  tool: string,
  input: Record<string, unknown>,
): ToolPart {
  const { id, sessionID, messageID, created } = ids
  return { id, sessionID, messageID, type: "tool", callID, tool, state: { status: "running", input, time: { start: created } } }
}

function complete(tool: ToolPart, result: ToolResultPart, at: number): void {
  const input = tool.state.input
  const start = tool.state.status === "pending" ? at : tool.state.time.start
  tool.state = result.isError
    ? { status: "error", input, error: result.output, time: { start, end: at } }
    : { status: "completed", input, output: result.output, title: tool.tool, metadata: {}, time: { start, end: at } }
}

function toolInput(part: ToolCallPart): Record<string, unknown> {
  const input = part.input
  if (input !== null && typeof input === "object" && !Array.isArray(input)) return input as Record<string, unknown>
  return { input }
}

function copyPart(part: Part): Part {
  if (part.type === "tool") return { ...part, state: { ...part.state } } as Part
  return { ...part }
}
