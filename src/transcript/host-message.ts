/**
 * The engine's message vocabulary: a host message is one `{ info, parts }` entry of the list OpenCode hands to
 * `experimental.chat.messages.transform`, and Pi's context is converted to it (`pi/pi-messages.ts`). The types name what
 * the engine reads and writes, not every field a host sends; `plugin/opencode-messages.ts` has the compiler check that
 * OpenCode's own messages are host messages, so a host upgrade that changes the shape fails the build.
 */
export type HostMessage = { info: HostInfo; parts: HostPart[] }

export type HostInfo = HostUserInfo | HostAssistantInfo

/** A user message: who sent the turn to which model, and the tool switches of the prompt. */
export type HostUserInfo = {
  id: string
  sessionID: string
  role: "user"
  time: { created: number }
  agent: string
  model: { providerID: string; modelID: string }
  tools?: Record<string, boolean>
  system?: string
}

/** A model's reply (one step): the model and the provider's usage report of the request. */
export type HostAssistantInfo = {
  id: string
  sessionID: string
  role: "assistant"
  time: { created: number; completed?: number }
  parentID: string
  modelID: string
  providerID: string
  mode: string
  path: { cwd: string; root: string }
  cost: number
  tokens: { input: number; output: number; reasoning: number; cache: { read: number; write: number } }
  summary?: boolean
  error?: unknown
  finish?: string
}

type PartBase = { id: string; sessionID: string; messageID: string }

export type HostTextPart = PartBase & { type: "text"; text: string; synthetic?: boolean; ignored?: boolean; time?: { start: number; end?: number } }
export type HostReasoningPart = PartBase & { type: "reasoning"; text: string; time: { start: number; end?: number } }
export type HostFilePart = PartBase & { type: "file"; mime: string; filename?: string; url: string }
export type HostToolPart = PartBase & { type: "tool"; callID: string; tool: string; state: HostToolState; metadata?: Record<string, unknown> }
export type HostSubtaskPart = PartBase & { type: "subtask"; prompt: string; description: string; agent: string }
export type HostCompactionPart = PartBase & { type: "compaction"; auto: boolean }
/** Parts the engine passes by (steps, snapshots, patches, agent switches, retries). */
export type HostBookkeepingPart = PartBase & { type: "step-start" | "step-finish" | "snapshot" | "patch" | "agent" | "retry" }

export type HostPart = HostTextPart | HostReasoningPart | HostFilePart | HostToolPart | HostSubtaskPart | HostCompactionPart | HostBookkeepingPart

/** A tool call's state: waiting for its input, running, finished, or failed. */
export type HostToolState =
  | { status: "pending"; input: Record<string, unknown>; raw?: string }
  | { status: "running"; input: Record<string, unknown>; title?: string; metadata?: Record<string, unknown>; time: { start: number } }
  | { status: "completed"; input: Record<string, unknown>; output: string; title: string; metadata: Record<string, unknown>; time: { start: number; end: number; compacted?: number } }
  | { status: "error"; input: Record<string, unknown>; error: string; metadata?: Record<string, unknown>; time: { start: number; end: number } }

/** What OpenCode sends the model for a tool whose call has not finished (see OPENCODE-NOTES §1.4). */
export const INTERRUPTED_TOOL_TEXT = "[Tool execution was interrupted]"

/** What OpenCode sends the model for a finished tool whose output it pruned (`state.time.compacted` set). */
export const PRUNED_TOOL_TEXT = "[Old tool result content cleared]"

/** What OpenCode sends the model for a user `compaction` part. */
export const COMPACTION_PROMPT_TEXT = "What did we do so far?"

/** True when a part's content will not change any more (a tool that finished, or any non-tool part). */
export function isFinalPart(part: HostPart): boolean {
  if (part.type !== "tool") return true
  return part.state.status === "completed" || part.state.status === "error"
}

/** File parts OpenCode does not send as media: their content travels in synthetic text parts before them. */
export function isInlinedFile(part: HostFilePart): boolean {
  return part.mime === "text/plain" || part.mime === "application/x-directory"
}

/** The newest user message's info: OpenCode records the agent, model and tool switches of a turn on it. */
export function newestUserInfo(messages: readonly HostMessage[]): HostUserInfo | null {
  for (let index = messages.length - 1; index >= 0; index -= 1) {
    const info = messages[index]?.info
    if (info?.role === "user") return info
  }
  return null
}
