import { existsSync } from "node:fs"
import type { Config } from "../config/schema.js"
import { gatherStatus } from "../status/gather-status.js"
import { configuredDatabasePath } from "../store/database-path.js"
import { openStoreReader } from "../store/open-store-reader.js"
import { hasSession } from "../store/session-repository.js"
import type { Transcript } from "../transcript/turn-model.js"

/** The usable window and the fixed prompt (system prompt and tool definitions) the live session's newest pass ran with. */
export type RecordedWindow = {
  usableTokens: number | null
  fixedTokens: number | null
  /** The store they were read from. */
  file: string
}

/**
 * What the plugin recorded of a transcript's session in the live store, read-only: for an `opencode export` (whose
 * session id is the store's) of a session magic-context ran in, the window and the fixed prompt of its newest pass,
 * as `/ctx-status` shows them. An export carries neither (only the model's name and the provider's usage reports), so
 * this is where a replay of it finds them. Null when the store or the session is not there or cannot be read (a replay
 * then goes on with the flags, the config or the defaults); never writes.
 */
export async function recordedSessionWindow(options: {
  transcript: Transcript
  config: Config
  env: Record<string, string | undefined>
}): Promise<RecordedWindow | null> {
  const { transcript, config } = options
  if (transcript.format !== "opencode-export") return null
  const file = configuredDatabasePath(config.database.path, options.env)
  if (!existsSync(file)) return null
  try {
    const db = await openStoreReader(file)
    try {
      if (!hasSession(db, transcript.id)) return null
      const status = gatherStatus({ db, sessionId: transcript.id, strategy: config.historian.strategy, thresholdPercent: null, hostCompaction: null })
      const pass = status.lastPass
      if (!pass) return null
      return { usableTokens: pass.windowTokens, fixedTokens: pass.breakdown?.fixed ?? null, file }
    } finally {
      db.close()
    }
  } catch {
    // A store that is busy, broken or not yet migrated: the replay goes on without its record.
    return null
  }
}
