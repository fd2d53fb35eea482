import type { FilePart, Message, Part, TextPart, ToolPart } from "@opencode-ai/sdk"

/** One entry of the list OpenCode hands to `experimental.chat.messages.transform`. */
export type HostMessage = { info: Message; parts: Part[] }

export type HostPart = Part
export type HostTextPart = TextPart
export type HostToolPart = ToolPart
export type HostFilePart = FilePart

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
export function newestUserInfo(messages: readonly HostMessage[]): Extract<Message, { role: "user" }> | null {
  for (let index = messages.length - 1; index >= 0; index -= 1) {
    const info = messages[index]?.info
    if (info?.role === "user") return info
  }
  return null
}
