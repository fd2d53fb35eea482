import { gatherStatus } from "../status/gather-status.js"
import { formatStatus } from "../status/format-status.js"
import type { HostMessage } from "../transcript/host-message.js"
import type { PluginRuntime } from "./plugin-runtime.js"

export const STATUS_COMMAND = "ctx-status"
/** How a status request's text starts; the transform recognises the request and its reply by it. */
export const STATUS_MARKER = "<ctx-status>"

/**
 * The text of a /ctx-status request: the report, then the instruction to show it unchanged. OpenCode turns every
 * command into a model call; the transform sends that call nothing but this message (a tiny, cheap request), and
 * leaves the request and its reply out of every later prompt, so the agent's context never sees them.
 */
export async function statusRequestText(runtime: PluginRuntime, sessionId: string): Promise<string> {
  const db = await runtime.database()
  const config = runtime.facts.hostConfig as { compaction?: { auto?: boolean; prune?: boolean } } | undefined
  const report = formatStatus(
    gatherStatus({
      db,
      sessionId,
      strategy: runtime.config.historian.strategy,
      thresholdPercent: runtime.lastPass.get(sessionId)?.window.thresholdPercent ?? runtime.config.execute_threshold,
      configuredProtectedTokens: runtime.config.protected_tokens,
      hostCompaction: {
        auto: config?.compaction?.auto ?? true,
        prune: config?.compaction?.prune ?? false,
        source: "OpenCode's config as loaded",
      },
    }),
    Date.now(),
  )
  return `${STATUS_MARKER}\n${report}\n</ctx-status>\nShow the report above to the user exactly as written, in one code block, and add nothing else.`
}

/** True for a /ctx-status request message. */
export function isStatusRequest(message: HostMessage): boolean {
  if (message.info.role !== "user") return false
  const first = message.parts.find((part) => part.type === "text")
  return first?.type === "text" && first.text.startsWith(STATUS_MARKER)
}

/** The ids of status requests and of the replies to them (assistant messages whose parent is a request). */
export function statusExchangeIds(messages: readonly HostMessage[]): Set<string> {
  const requests = new Set(messages.filter(isStatusRequest).map((message) => message.info.id))
  const ids = new Set(requests)
  for (const message of messages) {
    if (message.info.role === "assistant" && requests.has(message.info.parentID)) ids.add(message.info.id)
  }
  return ids
}
