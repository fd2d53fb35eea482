import type { Database } from "../store/driver.js"
import { storedSessionPricing, storedSessionReasoning, windowPricing } from "../status/session-reasoning.js"
import type { ErrorRecord } from "../store/error-repository.js"
import { storeFailureKind } from "../store/store-failure.js"
import { formatMemoryStatus, type MemoryStatus } from "../status/format-memory-status.js"
import { gatherStatus } from "../status/gather-status.js"
import { formatStatus } from "../status/format-status.js"
import type { CostPricing, HostCompaction, ReasoningStatus } from "../status/status-data.js"
import type { StoreHealth } from "../status/store-health.js"
import type { HostRuntime } from "./host-runtime.js"

export type StatusReportOptions = {
  runtime: HostRuntime
  sessionId: string
  /** Sessions whose messages wait to be written. */
  waitingSessions: number
  now: number
  /** What the host's own compaction is set to, as the report shows it (and where that was read). */
  hostCompaction: HostCompaction | null
  /** Problems with how the plugin is set up (a second copy loaded), listed with the config's problems. */
  setupProblems?: readonly string[]
}

/**
 * The /ctx-status report of a session, whatever the host. When the store cannot be read (busy, broken, from a newer
 * version) the report comes from memory: what is wrong, what is off, the fix, the last pass of this process, config
 * problems and the recent errors.
 */
export async function statusReport(options: StatusReportOptions): Promise<string> {
  const { runtime, sessionId, now } = options
  const configProblems = [...runtime.configDiagnostics.map((diagnostic) => diagnostic.message), ...(options.setupProblems ?? [])]
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
    // What the last pass owes (a quiet pass's record, the compartments it cut) when its turn of the loop has not come yet.
    runtime.settle(sessionId)
  } catch (error) {
    runtime.errors.record({ hook: "pass.settle", sessionId, error })
  }
  try {
    runtime.errors.flush()
    const status = gatherStatus({
      db,
      sessionId,
      strategy: runtime.config.historian.strategy,
      thresholdPercent: runtime.lastPass.get(sessionId)?.window.thresholdPercent ?? runtime.config.execute_threshold,
      configuredProtectedTokens: runtime.config.protected_tokens,
      hostCompaction: options.hostCompaction,
      reasoningRule: reasoningRuleOf(runtime, db, sessionId),
      pricing: pricingOf(runtime, db, sessionId),
      sessionlessErrors: { instanceId: runtime.errors.instanceId },
    })
    // Errors the store could not take yet (it is busy) are shown from memory beside the stored ones.
    const errors = [...runtime.errors.unsaved().filter(forSession), ...status.errors].sort((a, b) => b.at - a.at)
    return formatStatus({ ...status, errors, store: storeHealth(options, null), configProblems, sessionsHeld: runtime.heldSessions() }, now)
  } catch (error) {
    runtime.errors.record({ hook: "ctx-status", sessionId, error })
    return fromMemory(error)
  }
}

/** The store's failure as the report explains it: the runtime's, or `error` when it is a store failure. */
function storeHealth(options: StatusReportOptions, error: unknown): StoreHealth | null {
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

/**
 * The reasoning rule of the session: the one its last pass in this process ran under, else the rule of the model of
 * its newest stored user message (a new process, `/ctx-status` before any pass).
 */
function reasoningRuleOf(runtime: HostRuntime, db: Database, sessionId: string): Pick<ReasoningStatus, "rule" | "source" | "model"> | null {
  const pass = runtime.lastPass.get(sessionId)
  if (pass) return { rule: pass.window.reasoning, source: pass.window.reasoningSource, model: pass.model ?? null }
  return storedSessionReasoning({ db, sessionId, config: runtime.config, hostApi: (providerID, modelID) => runtime.facts.apiFor(providerID, modelID) })
}

/** The price list of the session: its last pass's in this process, else its stored model's (as for the reasoning rule). */
function pricingOf(runtime: HostRuntime, db: Database, sessionId: string): CostPricing | null {
  const pass = runtime.lastPass.get(sessionId)
  if (pass) return windowPricing(pass.window, pass.model ?? null)
  return storedSessionPricing({ db, sessionId, config: runtime.config, hostApi: (providerID, modelID) => runtime.facts.apiFor(providerID, modelID) })
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

function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error)
}

