import type { ConfigDiagnostic } from "../config/load-config.js"
import type { Config } from "../config/schema.js"
import { createSessionRegistry, type SessionRegistry } from "../pass/session-registry.js"
import { defaultDatabasePath } from "../store/database-path.js"
import type { Database } from "../store/driver.js"
import { openDatabase } from "../store/open-database.js"
import { encodingForModel } from "../tokens/encoding-for-model.js"
import { createTokenCounterPool, type TokenCounterPool } from "../tokens/tiktoken-counter.js"
import type { TokenCounter } from "../tokens/token-counter.js"
import type { ErrorLog } from "./error-log.js"

/** What the hooks share for the life of one OpenCode instance. */
export type PluginRuntime = {
  readonly config: Config
  readonly configDiagnostics: readonly ConfigDiagnostic[]
  readonly errors: ErrorLog
  readonly faults: ReadonlySet<string>
  readonly databaseFile: string
  /** The store, opened on first use. Rejects (every time) when it cannot be opened. */
  database(): Promise<Database>
  sessions(): Promise<SessionRegistry>
  counterFor(model: { providerID?: string; modelID?: string } | null): TokenCounter
  dispose(): void
}

/** Creates the runtime; nothing is opened or loaded until a hook needs it. */
export function createPluginRuntime(options: {
  config: Config
  configDiagnostics: readonly ConfigDiagnostic[]
  errors: ErrorLog
  faults: ReadonlySet<string>
  env: Record<string, string | undefined>
  now: () => number
}): PluginRuntime {
  const databaseFile = options.config.database.path ?? defaultDatabasePath(options.env)
  let opening: Promise<Database> | null = null
  let registry: SessionRegistry | null = null
  let pool: TokenCounterPool | null = null

  const database = (): Promise<Database> => {
    if (!opening) {
      opening = openDatabase(databaseFile).then((db) => {
        options.errors.attach(db)
        return db
      })
    }
    return opening
  }

  return {
    config: options.config,
    configDiagnostics: options.configDiagnostics,
    errors: options.errors,
    faults: options.faults,
    databaseFile,
    database,
    async sessions() {
      if (registry) return registry
      const db = await database()
      registry = createSessionRegistry({ db, now: options.now })
      return registry
    },
    counterFor(model) {
      pool ??= createTokenCounterPool()
      return pool.counterFor(
        encodingForModel({ providerID: model?.providerID, modelID: model?.modelID, settings: options.config.tokenizer }),
      )
    },
    dispose() {
      pool?.dispose()
      pool = null
      void opening?.then((db) => db.close()).catch(() => undefined)
    },
  }
}
