import type { ErrorRecord } from "../store/error-repository.js"
import { configProblemLines, errorLines } from "./report-lines.js"
import { storeHealthLines, type StoreHealth } from "./store-health.js"

/** What `/ctx-status` can say without the store: the plugin's memory of this process. */
export type MemoryStatus = {
  sessionId: string
  /** The store's failure, when the store is why the report comes from memory. */
  store: StoreHealth | null
  /** Why the report could not be read from a store that opened (a failure that is not the store's), or null. */
  unreadable: string | null
  /** The newest pass of the session in this process, or null. */
  lastPass: { seq: number; usagePercent: number; usableTokens: number; thresholdPercent: number } | null
  configProblems: readonly string[]
  /** Recent errors from the in-memory ring, newest first. */
  errors: readonly ErrorRecord[]
}

/**
 * The status report when the store cannot be read: what is wrong with it, what is off and the fix, the last pass this
 * process ran, config problems and the recent errors from memory. Pure.
 */
export function formatMemoryStatus(status: MemoryStatus, now: number): string {
  const lines = [`magic-context status: session ${status.sessionId} (from memory: the store could not be read)`, ""]
  if (status.store) lines.push(...storeHealthLines(status.store, now), "")
  if (status.unreadable) lines.push(`The report could not be read from the store: ${status.unreadable}`, "")
  const pass = status.lastPass
  const usable = pass?.usableTokens.toLocaleString("en-US")
  lines.push(
    pass
      ? `Last pass in this process: #${pass.seq}, usage ${pass.usagePercent.toFixed(1)}% of ${usable} usable tokens, ` +
          `execute threshold ${pass.thresholdPercent}%`
      : "Last pass in this process: none (no pass of this session has run since the host started)",
  )
  const config = configProblemLines(status.configProblems)
  if (config.length > 0) lines.push("", ...config)
  lines.push("", ...errorLines(status.errors, now))
  return lines.join("\n")
}
