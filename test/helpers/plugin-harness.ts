import { join } from "node:path"
import type { Hooks } from "@opencode-ai/plugin"
import { afterEach } from "vitest"
import { defaultConfig, type Config } from "../../src/config/schema.js"
import { createErrorLog, type ErrorLog } from "../../src/host/error-log.js"
import { createHooks } from "../../src/plugin/hooks.js"
import { createHostRuntime, type HostRuntime } from "../../src/host/host-runtime.js"
import type { Database } from "../../src/store/driver.js"
import { openDatabase } from "../../src/store/open-database.js"
import type { HostMessage } from "../../src/transcript/host-message.js"
import { asOpenCodeMessages } from "./host-messages.js"
import { createTempDirs } from "./temp-dirs.js"

/** A callback the runtime asked to run later; the test runs it when it moves the clock. */
type Scheduled = { at: number; run: () => void }

/** The plugin's hooks over a real store file, with a clock and a timer queue the test controls. */
export type PluginHarness = {
  hooks: Hooks
  runtime: HostRuntime
  errors: ErrorLog
  clock: { now: number }
  /** Moves the clock on by `ms` and runs every scheduled callback that is then due. */
  advance(ms: number): Promise<void>
  /** How far ahead of the clock each scheduled callback is, soonest first. */
  timers(): number[]
  /** The messages the host's client answers with for a session (what `session.messages` returns). */
  hostMessages: Map<string, HostMessage[]>
  /** The sessions the hooks asked the client for, in order. */
  listed: string[]
  dispose(): Promise<void>
}

/** Creates the hooks as `createPlugin` wires them, with `config` over the defaults and the store at `dbFile`. */
export function createPluginHarness(options: { dbFile: string; config?: Partial<Config>; faults?: string[] }): PluginHarness {
  const config: Config = { ...defaultConfig(), ...options.config }
  config.database = { ...config.database, path: options.dbFile }
  const clock = { now: 1_000_000 }
  const scheduled: Scheduled[] = []
  const errors = createErrorLog({ now: () => clock.now, hostLog: () => undefined })
  const runtime = createHostRuntime({
    config,
    configDiagnostics: [],
    errors,
    faults: new Set(options.faults ?? []),
    env: {},
    now: () => clock.now,
    schedule: (run, ms) => void scheduled.push({ at: clock.now + ms, run }),
  })
  const hostMessages = new Map<string, HostMessage[]>()
  const listed: string[] = []
  const hooks = createHooks({
    runtime,
    projectId: "proj",
    directory: "/work",
    loadProviderLimits: () => Promise.resolve(),
    historian: { schedule: () => Promise.resolve(), isHistorianSession: () => false, forget: () => undefined },
    listMessages: (sessionId) => {
      listed.push(sessionId)
      return Promise.resolve(structuredClone(hostMessages.get(sessionId) ?? []))
    },
  })
  return {
    hooks,
    runtime,
    errors,
    clock,
    hostMessages,
    listed,
    async advance(ms) {
      clock.now += ms
      for (const entry of scheduled.filter((candidate) => candidate.at <= clock.now)) {
        scheduled.splice(scheduled.indexOf(entry), 1)
        entry.run()
      }
      await new Promise((resolve) => setTimeout(resolve, 0))
    },
    timers: () => scheduled.map((entry) => entry.at - clock.now).sort((a, b) => a - b),
    dispose: async () => {
      await hooks.dispose?.()
    },
  }
}

/** A turn of the event loop: what a hook left for after the call (a quiet pass's record, a cut) is stored by then. */
export function loopTurn(): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, 5))
}

/** Runs the transform hook on `messages` (mutated in place, as OpenCode's are). */
export async function transform(hooks: Hooks, messages: HostMessage[]): Promise<HostMessage[]> {
  const hook = hooks["experimental.chat.messages.transform"]
  if (!hook) throw new Error("transform hook missing")
  await hook({}, { messages: asOpenCodeMessages(messages) })
  return messages
}

/**
 * Plugin harnesses over store files in temporary folders, for one test file: the harnesses a test made are disposed,
 * the stores it opened closed and the folders removed after it. Call once, at the file's top level.
 */
export function pluginHarnesses(folder: string, config?: Partial<Config>): {
  /** A new harness over a fresh store file. */
  harness(): PluginHarness
  /** Opens `file` (a harness's store) on a connection of its own. */
  openStore(file: string): Promise<Database>
} {
  const dirs = createTempDirs()
  const harnesses: PluginHarness[] = []
  const dbs: Database[] = []
  afterEach(async () => {
    for (const harness of harnesses.splice(0)) await harness.dispose()
    for (const db of dbs.splice(0)) db.close()
    dirs.cleanup()
  })
  return {
    harness() {
      const created = createPluginHarness({ dbFile: join(dirs.make(folder), "magic-context.db"), ...(config ? { config } : {}) })
      harnesses.push(created)
      return created
    },
    async openStore(file) {
      const db = await openDatabase(file)
      dbs.push(db)
      return db
    },
  }
}
