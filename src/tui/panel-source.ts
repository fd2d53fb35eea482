import { existsSync } from "node:fs"
import { readConfigFiles } from "../config/read-config-files.js"
import type { Database } from "../store/driver.js"
import { configuredDatabasePath } from "../store/database-path.js"
import { errorMessage } from "../store/error-details.js"
import { openStoreReader } from "../store/open-store-reader.js"
import { hasSession } from "../store/session-repository.js"
import { gatherStatus } from "../status/gather-status.js"
import { storedSessionPricing, storedSessionReasoning } from "../status/session-reasoning.js"
import type { PanelInput } from "../status/sidebar-panel.js"
import type { HostCompaction } from "../status/status-data.js"

/** Reads what the sidebar panel shows of a session from the store, read-only. */
export type PanelSource = {
  /**
   * The session's status, or why there is none; never throws. With `report`, the status also carries what only the
   * full report shows (the reasoning rule of the session's model, the host's compaction settings).
   */
  read(sessionId: string, report?: ReportDetails): Promise<PanelInput>
  close(): void
}

/** What the TUI knows of the running OpenCode that the full report shows. */
export type ReportDetails = {
  hostCompaction: HostCompaction
  /** The API OpenCode reaches a model through (its provider package), where it knows. */
  hostApi: (providerID: string, modelID: string) => string | null
}

/**
 * The panel's view of the store the plugin writes: the config is read once (the same files the plugin reads, for
 * the store's path, the threshold and the historian's strategy), the connection is opened when the file exists and
 * kept, and dropped after a failed read so the next read opens it again (a store replaced or migrated meanwhile).
 */
export function createPanelSource(options: { directory: string; env: Record<string, string | undefined> }): PanelSource {
  let loaded: ReturnType<typeof readConfigFiles>
  try {
    loaded = readConfigFiles({ directory: options.directory, env: options.env })
  } catch (error) {
    // Config files that cannot even be read: the panel says so instead of failing the TUI plugin's start.
    const message = `cannot read the magic-context config: ${errorMessage(error)}`
    return { read: () => Promise.resolve({ kind: "unreadable", message }), close: () => undefined }
  }
  const { config, diagnostics } = loaded
  const configProblems = diagnostics.map((diagnostic) => diagnostic.message)
  const file = configuredDatabasePath(config.database.path, options.env)
  let db: Database | null = null
  const drop = (): void => {
    try {
      db?.close()
    } catch {
      // A connection that cannot close is gone either way.
    }
    db = null
  }
  return {
    async read(sessionId, report) {
      if (!db && !existsSync(file)) return { kind: "no-store", file }
      try {
        db ??= await openStoreReader(file)
        if (!hasSession(db, sessionId)) return { kind: "no-session" }
        const status = gatherStatus({
          db,
          sessionId,
          strategy: config.historian.strategy,
          thresholdPercent: config.execute_threshold,
          configuredProtectedTokens: config.protected_tokens,
          hostCompaction: report?.hostCompaction ?? null,
          reasoningRule: report ? storedSessionReasoning({ db, sessionId, config, hostApi: report.hostApi }) : null,
          pricing: storedSessionPricing({ db, sessionId, config, ...(report ? { hostApi: report.hostApi } : {}) }),
        })
        return { kind: "status", status: { ...status, configProblems } }
      } catch (error) {
        drop()
        return { kind: "unreadable", message: errorMessage(error) }
      }
    },
    close: drop,
  }
}
