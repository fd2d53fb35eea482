import type { Database } from "../store/driver.js"
import type { ErrorRecord } from "../store/error-repository.js"
import { storeFailureKind } from "../store/store-failure.js"
import { formatMemoryStatus, type MemoryStatus } from "../status/format-memory-status.js"
import { gatherStatus } from "../status/gather-status.js"
import { formatStatus } from "../status/format-status.js"
import type { StoreHealth } from "../status/store-health.js"
import type { HostMessage } from "../transcript/host-message.js"
import type { HostRuntime } from "../host/host-runtime.js"

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
export async function statusRequestText(options: StatusRequestOptions): Promise<string> {
  return wrapReport(await statusReport(options))
}

type StatusRequestOptions = {
  runtime: HostRuntime
  sessionId: string
  /** Sessions whose messages wait to be written. */
  waitingSessions: number
  now: number
}

async function statusReport(options: StatusRequestOptions): Promise<string> {
  const { runtime, sessionId, now } = options
  const configProblems = runtime.configDiagnostics.map((diagnostic) => diagnostic.message)
  const forSession = (entry: ErrorRecord): boolean => entry.sessionId === sessionId || entry.sessionId === null
  const fromMemory = (error: unknown): string =>
    formatMemoryStatus(
      {
        sessionId,
        store: storeHealth(options, error),
        unreadable: storeFailureKind(error) === null ? errorMessage(error) : null,
        lastPass: lastPassInMemory(runtime, sessionId),
        configProblems,
        errors: runtime.errors.recent().filter(forSession),
      },
      now,
    )
  let db: Database
  try {
    db = await runtime.databaseForReading()
  } catch (error) {
    return fromMemory(error)
  }
  try {
    runtime.errors.flush()
    const config = runtime.facts.hostConfig as { compaction?: { auto?: boolean; prune?: boolean } } | undefined
    const status = gatherStatus({
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
    })
    // Errors the store could not take yet (it is busy) are shown from memory beside the stored ones.
    const errors = [...runtime.errors.unsaved().filter(forSession), ...status.errors].sort((a, b) => b.at - a.at)
    return formatStatus({ ...status, errors, store: storeHealth(options, null), configProblems }, now)
  } catch (error) {
    runtime.errors.record({ hook: "ctx-status", sessionId, error })
    return fromMemory(error)
  }
}

/** The store's failure as the report explains it: the runtime's, or `error` when it is a store failure. */
function storeHealth(options: StatusRequestOptions, error: unknown): StoreHealth | null {
  const { runtime } = options
  const failure = runtime.storeFailure()
  const kind = failure?.kind ?? storeFailureKind(error)
  if (!kind) return null
  return {
    kind,
    file: runtime.databaseFile,
    message: errorMessage(failure ? failure.error : error),
    since: failure?.since ?? options.now,
    retryAt: failure?.retryAt ?? options.now,
    busyTimeoutMs: runtime.config.database.busy_timeout_ms,
    waitingSessions: options.waitingSessions,
  }
}

function lastPassInMemory(runtime: HostRuntime, sessionId: string): MemoryStatus["lastPass"] {
  const pass = runtime.lastPass.get(sessionId)
  if (!pass) return null
  return {
    seq: pass.passSeq,
    usagePercent: pass.usagePercent,
    usableTokens: pass.window.usableTokens,
    thresholdPercent: pass.window.thresholdPercent,
  }
}

function wrapReport(report: string): string {
  return `${STATUS_MARKER}\n${report}\n</ctx-status>\n${STATUS_INSTRUCTION}`
}

function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error)
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
