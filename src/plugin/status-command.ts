import { statusReport, type StatusReportOptions } from "../host/status-report.js"
import { openCodeCompaction } from "../status/status-data.js"
import type { HostMessage } from "../transcript/host-message.js"

export const STATUS_COMMAND = "ctx-status"
/** How a status request's text starts; the transform recognises the request and its reply by it. */
export const STATUS_MARKER = "<ctx-status>"

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
 * The text of a /ctx-status request: the report, then the instruction to show it unchanged. OpenCode turns every
 * command into a model call; the transform sends that call nothing but this message (a tiny, cheap request), and
 * leaves the request and its reply out of every later prompt, so the agent's context never sees them. When the store
 * cannot be read (busy, broken, from a newer version) the report comes from memory: what is wrong, what is off, the
 * fix, the last pass of this process, config problems and the recent errors.
 */
export async function statusRequestText(options: Omit<StatusReportOptions, "hostCompaction">): Promise<string> {
  const config = options.runtime.facts.hostConfig as { compaction?: { auto?: boolean; prune?: boolean } } | undefined
  const hostCompaction = openCodeCompaction({ auto: config?.compaction?.auto ?? true, prune: config?.compaction?.prune ?? false, source: "OpenCode's config as loaded" })
  return wrapReport(await statusReport({ ...options, hostCompaction }))
}

function wrapReport(report: string): string {
  return `${STATUS_MARKER}\n${report}\n</ctx-status>\n${STATUS_INSTRUCTION}`
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
