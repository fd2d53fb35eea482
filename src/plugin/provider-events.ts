import type { HostRuntime } from "../host/host-runtime.js"
import { explainReasoningRejection, isReasoningRejection } from "../host/provider-rejection.js"
import { PluginError, REASONING_REJECTED } from "../plugin-error.js"
import type { Database } from "../store/driver.js"
import { errorSinceLastPass } from "../store/error-repository.js"

/** The `thinking.type` of a request's provider options (`chat.params`), or null when they name none. */
export function thinkingType(options: Record<string, unknown>): string | null {
  const thinking = options["thinking"]
  if (thinking === null || typeof thinking !== "object") return null
  const type = (thinking as { type?: unknown }).type
  return typeof type === "string" ? type : null
}

/**
 * A provider's error for a session's request, when it rejects the reasoning state the request carried: recorded with
 * what to do, where `/ctx-status` and the sidebar show it (`provider-rejection.ts`).
 */
export function noteProviderError(runtime: HostRuntime, properties: { sessionID?: string; error?: unknown }): void {
  const error = properties.error as { name?: unknown; data?: { message?: unknown; statusCode?: unknown } } | undefined
  const message = typeof error?.data?.message === "string" ? error.data.message : ""
  if (!isReasoningRejection(message)) return
  const sessionId = properties.sessionID ?? null
  const last = sessionId === null ? undefined : runtime.lastPass.get(sessionId)
  const explained = explainReasoningRejection({
    message,
    status: typeof error?.data?.statusCode === "number" ? error.data.statusCode : null,
    rule: last?.window.reasoning ?? null,
    lastPass: last?.passSeq ?? null,
  })
  runtime.errors.record({ hook: "provider", sessionId, error: new PluginError(REASONING_REJECTED, explained) })
  if (sessionId !== null) runtime.reasoningRejected.add(sessionId)
}

/**
 * True when the provider rejected the session's last request over its reasoning state: this process heard of it, or
 * (on the session's first pass in this process: `opencode run` ends with the turn) a process before it recorded it
 * after the last pass. A store that cannot answer says no: the check never fails the pass.
 */
export function rejectedSinceLastPass(runtime: HostRuntime, db: Database, sessionId: string): boolean {
  if (runtime.reasoningRejected.delete(sessionId)) return true
  if (runtime.lastPass.has(sessionId)) return false
  try {
    return errorSinceLastPass(db, sessionId, REASONING_REJECTED)
  } catch {
    return false
  }
}
