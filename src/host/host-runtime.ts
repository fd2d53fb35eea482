import type { ConfigDiagnostic } from "../config/load-config.js"
import type { Config } from "../config/schema.js"
import { createSessionRegistry, type SessionRegistry } from "../pass/session-registry.js"
import { configuredDatabasePath } from "../store/database-path.js"
import type { Database } from "../store/driver.js"
import { openDatabase } from "../store/open-database.js"
import { encodingForModel } from "../tokens/encoding-for-model.js"
import { createTokenCounterPool, type TokenCounterPool } from "../tokens/tiktoken-counter.js"
import { COUNT_AHEAD_CHARS, withCountsAhead, type CountingAhead } from "../tokens/counted-ahead.js"
import type { Encoding } from "../tokens/token-counter.js"
import type { WindowSettings } from "../pressure/model-window.js"
import type { ReduceContext } from "../pass/queue-reduce-call.js"
import type { ErrorLog } from "./error-log.js"
import { maybeFail } from "./fault-injection.js"
import { createHostFacts, type HostFacts } from "./host-facts.js"
import type { HistoryPlanner } from "../pass/history-planner.js"
import { compilePinPatterns, type PinPattern } from "../historian/pin-patterns.js"
import { isCompartmentOf } from "../historian/compartment-id.js"
import { setBusyTimeout } from "../store/busy-timeout.js"
import { isBusyError } from "../store/store-failure.js"
import { createStoreGate, type StoreFailure } from "./store-gate.js"

/** What the last main pass of a session saw; ctx_reduce (`ReduceContext`) and the system guidance read it. */
export type LastPass = ReduceContext & {
  tagsVisible: boolean
  /** The model the pass ran for ("provider/model"), when the host said. */
  model?: string | null
}

/** What the hooks share for the life of one OpenCode instance. */
export type HostRuntime = {
  readonly config: Config
  readonly configDiagnostics: readonly ConfigDiagnostic[]
  readonly errors: ErrorLog
  readonly faults: ReadonlySet<string>
  readonly databaseFile: string
  /**
   * The store, opened on first use, its statements set to wait for another process's lock up to
   * `database.busy_timeout_ms`, or not at all with `wait: false` (a retry that can come again later) and while a busy
   * store's backoff runs. Rejects at once, without touching the store, during the backoff after it could not be opened
   * or used; after that the store is tried again. Call it right before the (synchronous) work that uses it.
   */
  database(options?: { wait?: boolean }): Promise<Database>
  /**
   * The store for reading only (the status report): the open connection whatever the backoff (WAL lets a reader in
   * while another process holds the write lock), else as `database({ wait: false })`.
   */
  databaseForReading(): Promise<Database>
  /** Notes that a write met another process's lock: until the backoff has passed, tries do not wait for it. */
  storeFailed(error: unknown): void
  /** Notes that the store took a pass's writes: the next failure's backoff starts over. */
  storeWorked(): void
  /** The store's last failure while hooks skip or retry it; null when it worked last. */
  storeFailure(): StoreFailure | null
  /** Runs `run` after `ms` (a timer that does not keep the process alive). */
  schedule(run: () => void, ms: number): void
  /** The runtime's clock (epoch ms). */
  now(): number
  sessions(): Promise<SessionRegistry>
  /** The model's counter; texts counted ahead of a pass (`countAhead`, from the host's events) answer its counts. */
  counterFor(model: { providerID?: string; modelID?: string } | null): CountingAhead
  readonly facts: HostFacts
  readonly lastPass: Map<string, LastPass>
  /** Sessions whose next transform call comes from OpenCode's compaction. */
  readonly compacting: Set<string>
  /**
   * Sessions whose last request the provider rejected over its reasoning state: their next pass withholds every
   * reasoning part (the providers' documented way out: leave the thinking out and go on).
   */
  readonly reasoningRejected: Set<string>
  /** The config's pin patterns, compiled once. */
  readonly pinPatterns: readonly PinPattern[]
  /** Compartments the agent expanded: relevant again, so the next history update promotes them. */
  readonly expanded: Set<string>
  /** The session's historian side (compartments, tiers, the history an execute pass folds in), when it has one. */
  plannerOf(sessionId: string): HistoryPlanner | undefined
  /** Sessions whose main transform ran and whose system prompt (the same step's) has not come through yet. */
  readonly mainStepPending: Set<string>
  /** Tells the user something about the settings once per process (the host log and a toast), e.g. a clamped value. */
  warnOnce(message: string): void
  /**
   * Stores what passes left owed (`Session.settle`: a quiet pass's record, then the compartments a cut made, at most
   * `limit` episodes a session): the session's, or every session's. Returns true while the named session still owes
   * cut episodes. Nothing to do before the store and the sessions are open.
   */
  settle(sessionId?: string, limit?: number): boolean
  /** Drops a session's in-memory state after a failed write, so the next pass loads it from the store as it is. */
  forgetSession(sessionId: string): void
  /**
   * A session the host ended (deleted): what it still owes is stored first (`Session.settle()`: its raw rows and a
   * quiet pass's record, then every episode cut), then the session and every entry the runtime keeps for it (last
   * pass, pending flags, host facts, expanded episodes) are let go. Its stored rows stay. A settle that fails throws
   * and forgets nothing: the session stays held with what it owes (nothing seen is lost), and dispose settles it.
   */
  endSession(sessionId: string): void
  /** How many sessions this runtime holds in memory (the status report shows it). */
  heldSessions(): number
  dispose(): void
}

/** Creates the runtime; nothing is opened or loaded until a hook needs it. */
export function createHostRuntime(options: {
  config: Config
  configDiagnostics: readonly ConfigDiagnostic[]
  errors: ErrorLog
  faults: ReadonlySet<string>
  env: Record<string, string | undefined>
  now: () => number
  /** Where `warnOnce` messages go; by default nowhere. */
  warn?: (message: string) => void
  /** Defaults to an unref'd `setTimeout`. */
  schedule?: (run: () => void, ms: number) => void
}): HostRuntime {
  const databaseFile = configuredDatabasePath(options.config.database.path, options.env)
  let opened: Database | null = null
  let opening: Promise<Database> | null = null
  let registry: SessionRegistry | null = null
  let pool: TokenCounterPool | null = null
  const counters = new Map<Encoding, CountingAhead>()
  const byModel = new Map<string, CountingAhead>()
  // After a store that could not be opened, every caller gets the same failure at once until the backoff has passed
  // (a hook passes through without waiting); after another process's lock, tries do not wait for it until then.
  const gate = createStoreGate()
  let disposed = false

  const busyTimeoutMs = options.config.database.busy_timeout_ms
  // The open connection's busy timeout as last set here (`withoutBusyWait` restores what it changes): a PRAGMA only
  // when it is to change.
  let busyTimeoutSet: number | null = null
  const database = (request: { wait?: boolean } = {}): Promise<Database> => {
    if (disposed) return Promise.reject(new Error("magic-context was disposed: the store is closed"))
    const now = options.now()
    const blocked = gate.blocking(now)
    if (blocked !== null) return Promise.reject(blocked)
    // While a busy store's backoff runs, every try fails at once instead of waiting for the lock.
    const wait = (request.wait ?? true) && !gate.noWait(now)
    if (opened) {
      const wanted = wait ? busyTimeoutMs : 0
      if (busyTimeoutSet !== wanted) setBusyTimeout(opened, wanted)
      busyTimeoutSet = wanted
      return Promise.resolve(opened)
    }
    opening ??= openDatabase(databaseFile, { busyTimeoutMs: wait ? busyTimeoutMs : 0 }).then(
      (db) => {
        if (!wait) setBusyTimeout(db, busyTimeoutMs)
        busyTimeoutSet = busyTimeoutMs
        opened = db
        opening = null
        options.errors.attach(db)
        gate.succeed()
        return db
      },
      (error: unknown) => {
        opening = null
        gate.fail(error, options.now())
        throw error
      },
    )
    return opening
  }

  const warned = new Set<string>()
  const lastPass = new Map<string, LastPass>()
  const compacting = new Set<string>()
  const reasoningRejected = new Set<string>()
  const mainStepPending = new Set<string>()
  const expanded = new Set<string>()
  const facts = createHostFacts()

  const settle = (sessionId?: string, limit?: number): boolean => {
    if (!opened || !registry || disposed) return false
    if (sessionId !== undefined) return registry.held(sessionId)?.settle(limit) ?? false
    for (const session of registry.sessions()) session.settle(limit)
    return false
  }
  return {
    config: options.config,
    configDiagnostics: options.configDiagnostics,
    errors: options.errors,
    faults: options.faults,
    databaseFile,
    database,
    databaseForReading: () => (opened && !disposed ? Promise.resolve(opened) : database({ wait: false })),
    storeFailed(error) {
      if (isBusyError(error)) gate.fail(error, options.now())
    },
    storeWorked: () => gate.succeed(),
    storeFailure: () => gate.failure(),
    schedule: options.schedule ?? unrefTimer,
    now: options.now,
    facts,
    lastPass,
    compacting,
    reasoningRejected,
    mainStepPending,
    plannerOf: (sessionId) => registry?.held(sessionId)?.planner ?? undefined,
    expanded,
    pinPatterns: compilePinPatterns(options.config.pins).matchers,
    async sessions() {
      if (registry) return registry
      const db = await database()
      registry = createSessionRegistry({ db, now: options.now, defersRecords: true })
      return registry
    },
    counterFor(model) {
      // Every pass asks: the model's encoding is worked out once per model (the settings are the runtime's).
      const key = `${model?.providerID ?? ""}\u0000${model?.modelID ?? ""}`
      const known = byModel.get(key)
      if (known) return known
      const encoding = encodingForModel({ providerID: model?.providerID, modelID: model?.modelID, settings: options.config.tokenizer })
      pool ??= createTokenCounterPool()
      const counter = counters.get(encoding) ?? withCountsAhead(pool.counterFor(encoding), { maxChars: COUNT_AHEAD_CHARS })
      counters.set(encoding, counter)
      byModel.set(key, counter)
      return counter
    },
    warnOnce(message) {
      if (warned.has(message)) return
      warned.add(message)
      options.warn?.(message)
    },
    settle,
    forgetSession(sessionId) {
      registry?.forget(sessionId)
    },
    endSession(sessionId) {
      // Settled to the end (no slice limit): the session is not coming back to owe more.
      if (opened && !disposed) registry?.held(sessionId)?.settle()
      registry?.forget(sessionId)
      lastPass.delete(sessionId)
      compacting.delete(sessionId)
      reasoningRejected.delete(sessionId)
      mainStepPending.delete(sessionId)
      facts.forgetSession(sessionId)
      for (const id of expanded) if (isCompartmentOf(id, sessionId)) expanded.delete(id)
    },
    heldSessions: () => registry?.count() ?? 0,
    dispose() {
      // Records and cuts not stored yet go in while the store is open (a new process would cut those messages again).
      try {
        maybeFail(options.faults, "dispose")
      } catch (error) {
        options.errors.record({ hook: "dispose", sessionId: null, error })
      }
      for (const session of opened && registry ? registry.sessions() : []) {
        try {
          session.settle()
        } catch (error) {
          options.errors.record({ hook: "dispose", sessionId: session.id, error })
        }
      }
      disposed = true
      // What was settled is stored; what could not be stays in the hosts' own storage (a next pass re-stores it).
      for (const session of registry?.sessions() ?? []) session.forget()
      registry = null
      lastPass.clear()
      pool?.dispose()
      pool = null
      counters.clear()
      byModel.clear()
      const connection = opened
      opened = null
      connection?.close()
      void opening?.then((db) => db.close()).catch(() => undefined)
    },
  }
}

/** Runs `run` after `ms` on a timer that does not keep the process alive. */
export function unrefTimer(run: () => void, ms: number): void {
  const timer = setTimeout(run, ms)
  timer.unref?.()
}
