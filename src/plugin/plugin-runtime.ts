import type { ConfigDiagnostic } from "../config/load-config.js"
import type { Config } from "../config/schema.js"
import { createSessionRegistry, type SessionRegistry } from "../pass/session-registry.js"
import { configuredDatabasePath } from "../store/database-path.js"
import type { Database } from "../store/driver.js"
import { openDatabase } from "../store/open-database.js"
import { encodingForModel } from "../tokens/encoding-for-model.js"
import { createTokenCounterPool, type TokenCounterPool } from "../tokens/tiktoken-counter.js"
import type { TokenCounter } from "../tokens/token-counter.js"
import type { WindowSettings } from "../pressure/model-window.js"
import type { LiveView } from "../reduce/live-view.js"
import type { ErrorLog } from "./error-log.js"
import { createHostFacts, type HostFacts } from "./host-facts.js"
import type { HistoryPlanner } from "../pass/history-planner.js"
import { compilePinPatterns, type PinPattern } from "../historian/pin-patterns.js"

/** What the last main pass of a session saw; ctx_reduce and the system guidance read it. */
export type LastPass = {
  view: LiveView
  window: WindowSettings
  usagePercent: number
  tagsVisible: boolean
  /** The newest user message: the current turn, for the per-turn ctx_reduce cap. */
  turnMessageId: string | null
  passSeq: number
}

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
  readonly facts: HostFacts
  readonly lastPass: Map<string, LastPass>
  /** Sessions whose next transform call comes from OpenCode's compaction. */
  readonly compacting: Set<string>
  /** The config's pin patterns, compiled once. */
  readonly pinPatterns: readonly PinPattern[]
  /** Compartments the agent expanded: relevant again, so the next history update promotes them. */
  readonly expanded: Set<string>
  /** Each session's historian side (compartments, tiers, the history an execute pass folds in). */
  readonly planners: Map<string, HistoryPlanner>
  /** Sessions whose main transform ran and whose system prompt (the same step's) has not come through yet. */
  readonly mainStepPending: Set<string>
  /** Tells the user something about the settings once per process (the host log and a toast), e.g. a clamped value. */
  warnOnce(message: string): void
  dispose(): void
}

/** Creates the runtime; nothing is opened or loaded until a hook needs it. */
/** After a failed open the store is tried again after this long, doubling per failure up to OPEN_RETRY_MAX_MS. */
export const OPEN_RETRY_FIRST_MS = 1_000
export const OPEN_RETRY_MAX_MS = 30_000

export function createPluginRuntime(options: {
  config: Config
  configDiagnostics: readonly ConfigDiagnostic[]
  errors: ErrorLog
  faults: ReadonlySet<string>
  env: Record<string, string | undefined>
  now: () => number
  /** Where `warnOnce` messages go; by default nowhere. */
  warn?: (message: string) => void
}): PluginRuntime {
  const databaseFile = configuredDatabasePath(options.config.database.path, options.env)
  let opening: Promise<Database> | null = null
  let registry: SessionRegistry | null = null
  let pool: TokenCounterPool | null = null
  // A failed open is retried, never more often than the backoff allows (a lock held at start-up, a store made
  // usable later); until then every caller gets the same failure at once, so a hook passes through without waiting.
  let failures = 0
  let retryAt = 0

  const database = (): Promise<Database> => {
    if (opening && failures > 0 && options.now() >= retryAt) opening = null
    if (!opening) {
      const attempt = openDatabase(databaseFile).then((db) => {
        options.errors.attach(db)
        failures = 0
        return db
      })
      attempt.catch(() => {
        failures += 1
        retryAt = options.now() + Math.min(OPEN_RETRY_MAX_MS, OPEN_RETRY_FIRST_MS * 2 ** (failures - 1))
      })
      opening = attempt
    }
    return opening
  }

  const warned = new Set<string>()

  return {
    config: options.config,
    configDiagnostics: options.configDiagnostics,
    errors: options.errors,
    faults: options.faults,
    databaseFile,
    database,
    facts: createHostFacts(),
    lastPass: new Map(),
    compacting: new Set(),
    mainStepPending: new Set(),
    planners: new Map(),
    expanded: new Set(),
    pinPatterns: compilePinPatterns(options.config.pins).matchers,
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
    warnOnce(message) {
      if (warned.has(message)) return
      warned.add(message)
      options.warn?.(message)
    },
    dispose() {
      pool?.dispose()
      pool = null
      void opening?.then((db) => db.close()).catch(() => undefined)
    },
  }
}
