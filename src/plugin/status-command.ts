import { isMainThread } from "node:worker_threads"
import { inspectOpenCodeInstall, loadsMagicContextTui } from "../install/opencode-install.js"
import { statusReport, type StatusReportOptions } from "../host/status-report.js"
import { loadedOpenCodeCompaction } from "../status/opencode-config-compaction.js"
import { STATUS_COMMAND } from "../status/status-command-name.js"
import type { HostMessage } from "../transcript/host-message.js"

export { STATUS_COMMAND }
/** How a status request's text starts; the transform recognises the request and its reply by it. */
export const STATUS_MARKER = "<ctx-status>"
const STATUS_CLOSE = "</ctx-status>"

/** What the request asks the model to do with the report. */
const STATUS_INSTRUCTION =
  "Show the report above to the user exactly as written, in one code block, and add nothing else."

/**
 * The command's template: what the request says when building the report failed altogether. It is a status request
 * too, so even then the model gets this message alone, never the conversation.
 */
export const STATUS_TEMPLATE = wrapReport(
  "magic-context could not build its status report; OpenCode's log has the reason.",
)

/**
 * Whether the server plugin registers /ctx-status as a command. OpenCode's terminal UI runs its server in a worker
 * thread; when the TUI config loads magic-context's TUI plugin, that plugin's `/ctx-status` opens the report in a
 * dialog with no model call, and a server command of the same name would sit above it in the slash list (Enter
 * takes the first entry). Everywhere else (`opencode run`, `opencode serve` and its clients, a TUI without the
 * plugin) the server command is the only way to the report in OpenCode.
 */
export function serverStatusCommandWanted(options: { directory: string | null; env: Record<string, string | undefined>; inTuiWorker?: boolean }): boolean {
  const inTuiWorker = options.inTuiWorker ?? !isMainThread
  if (!inTuiWorker || !options.directory) return true
  const install = inspectOpenCodeInstall({ directory: options.directory, env: options.env })
  return !install.tuiEntries.some(loadsMagicContextTui)
}

/**
 * The text of a /ctx-status request: the report, then the instruction to show it unchanged. OpenCode turns every
 * command into a model call; the transform sends that call nothing but this message (a tiny, cheap request), and
 * leaves the request and its reply out of every later prompt, so the agent's context never sees them. The user
 * sees neither the markup nor the instruction: the request's part is synthetic (OpenCode's views hide it) and the
 * reply shows the report itself, whatever the model answered (statusReplyText). When the store
 * cannot be read (busy, broken, from a newer version) the report comes from memory: what is wrong, what is off, the
 * fix, the last pass of this process, config problems and the recent errors.
 */
export async function statusRequestText(options: Omit<StatusReportOptions, "hostCompaction">): Promise<string> {
  const hostCompaction = loadedOpenCodeCompaction(options.runtime.facts.hostConfig)
  return wrapReport(await statusReport({ ...options, hostCompaction }))
}

function wrapReport(report: string): string {
  return `${STATUS_MARKER}\n${report}\n${STATUS_CLOSE}\n${STATUS_INSTRUCTION}`
}

/** The part a /ctx-status request carries: synthetic, so OpenCode shows it in no user bubble; the model reads it. */
export function statusRequestPart(text: string): { type: "text"; text: string; synthetic: true } {
  return { type: "text", text, synthetic: true }
}

/** The report a /ctx-status request carries, between its markers ("" when the message is not one). */
export function statusReportOf(message: HostMessage): string {
  if (!isStatusRequest(message)) return ""
  const part = message.parts.find((candidate) => candidate.type === "text")
  const text = part && part.type === "text" ? part.text : ""
  const end = text.lastIndexOf(`\n${STATUS_CLOSE}`)
  return text.slice(STATUS_MARKER.length + 1, end < 0 ? undefined : end)
}

/**
 * The reply the user sees to a /ctx-status request: the report in a code block (OpenCode's views render replies as
 * markdown, which would reflow the report's aligned rows), in place of what the model wrote.
 */
export function statusReplyText(report: string): string {
  return `\`\`\`\n${report}\n\`\`\``
}

/** True for a /ctx-status request message. */
export function isStatusRequest(message: HostMessage): boolean {
  if (message.info.role !== "user") return false
  for (const part of message.parts) if (part.type === "text") return part.text.startsWith(STATUS_MARKER)
  return false
}

/** The ids of status requests and of the replies to them (assistant messages whose parent is a request). */
export function statusExchangeIds(messages: readonly HostMessage[]): Set<string> {
  // Every call visits every message: one loop, no list of the requests unless there is one.
  const requests = new Set<string>()
  for (const message of messages) if (isStatusRequest(message)) requests.add(message.info.id)
  const ids = new Set(requests)
  if (requests.size === 0) return ids
  for (const message of messages) {
    if (message.info.role === "assistant" && requests.has(message.info.parentID)) ids.add(message.info.id)
  }
  return ids
}
