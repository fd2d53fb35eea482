/**
 * The record types of a Claude Code session file, and what the model saw of an `attachment` record: one table for the
 * format detector and the importer. Read from Claude Code's session files of versions 2.1.39 to 2.1.2xx and from what
 * its bundle renders for each attachment kind (a `<system-reminder>` in a meta user message, sent with the next model
 * call).
 */

/** Records that are no turn and carry nothing the model read: progress, snapshots, titles, modes, the last prompt. */
export const CLAUDE_CODE_BOOKKEEPING: ReadonlySet<string> = new Set([
  "progress",
  "file-history-snapshot",
  "system",
  "summary",
  "custom-title",
  "ai-title",
  "agent-name",
  "mode",
  "permission-mode",
  "last-prompt",
  "tag",
])

/** Every record type the importer knows: turns, the queue, attachments and bookkeeping. */
export const CLAUDE_CODE_RECORD_TYPES: ReadonlySet<string> = new Set([
  "user",
  "assistant",
  "queue-operation",
  "attachment",
  ...CLAUDE_CODE_BOOKKEEPING,
])

/** What an attachment gave the model: text the harness wrote, or words the user wrote (a message queued mid-turn). */
export type AttachmentText = { text: string; from: "harness" | "user" }

/**
 * The text the model read for one attachment (its `attachment` object), null for a kind the model reads nothing of
 * or the importer does not read (`unreadAttachmentKind` names it for the skipped count). Kinds read:
 * - `hook_additional_context`: what a hook added to the context, as "<hook> hook additional context: <lines>".
 * - `hook_blocking_error`: a hook's refusal, which the model is told.
 * - `queued_command`: a message the user typed while the agent worked, attached to the next model call.
 * - `edited_text_file`: the changed lines of a file edited outside the agent.
 * - `file`: the text of a file the user attached with `@` (when the record holds it).
 */
export function attachmentText(attachment: unknown): AttachmentText | null {
  if (!isObject(attachment)) return null
  const kind = attachment["type"]
  if (kind === "hook_additional_context") {
    const lines = stringList(attachment["content"])
    if (lines.length === 0) return null
    return harness(`${stringOr(attachment["hookName"], "A")} hook additional context: ${lines.join("\n")}`)
  }
  if (kind === "hook_blocking_error") {
    const error = attachment["blockingError"]
    const detail = isObject(error) ? stringOr(error["blockingError"], "") : ""
    if (detail === "") return null
    return harness(`${stringOr(attachment["hookName"], "A")} hook blocking error: ${detail}`)
  }
  if (kind === "queued_command") {
    const prompt = attachment["prompt"]
    const text = typeof prompt === "string" ? prompt : stringList(prompt).join("\n")
    return text === "" ? null : { text, from: "user" }
  }
  if (kind === "edited_text_file") {
    const snippet = stringOr(attachment["snippet"], "")
    return snippet === "" ? null : harness(`${stringOr(attachment["filename"], "a file")} was modified:\n${snippet}`)
  }
  if (kind === "file") {
    const content = attachment["content"]
    const file = isObject(content) && isObject(content["file"]) ? content["file"] : null
    const text = file === null ? "" : stringOr(file["content"], "")
    return text === "" ? null : harness(`Contents of ${stringOr(attachment["filename"], "the attached file")}:\n${text}`)
  }
  return null
}

/** The attachment kinds `attachmentText` reads (an empty one gives no text but is no unknown kind). */
const KINDS_READ: ReadonlySet<string> = new Set(["hook_additional_context", "hook_blocking_error", "queued_command", "edited_text_file", "file"])

/**
 * How the skipped count names an attachment whose kind the importer does not read (`attachment:<kind>`); null for a
 * kind it reads. A replay of a file with such attachments may lack text the live model had.
 */
export function unreadAttachmentKind(attachment: unknown): string | null {
  const kind = isObject(attachment) ? attachment["type"] : undefined
  if (typeof kind === "string" && KINDS_READ.has(kind)) return null
  return `attachment:${typeof kind === "string" ? kind : "unknown"}`
}

function harness(text: string): AttachmentText {
  return { text: `<system-reminder>\n${text}\n</system-reminder>`, from: "harness" }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value)
}

function stringOr(value: unknown, fallback: string): string {
  return typeof value === "string" ? value : fallback
}

function stringList(value: unknown): string[] {
  if (typeof value === "string") return [value]
  return Array.isArray(value) ? value.filter((item): item is string => typeof item === "string") : []
}
