import { rmSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { afterAll, describe, expect, it } from "vitest"
import { defaultConfig, type Config } from "../../src/config/schema.js"
import { createErrorLog } from "../../src/host/error-log.js"
import { createHostRuntime, type HostRuntime } from "../../src/host/host-runtime.js"
import { OPEN_RETRY_FIRST_MS, OPEN_RETRY_MAX_MS } from "../../src/host/store-gate.js"
import { createTempDirs } from "../helpers/temp-dirs.js"

const dirs = createTempDirs()
const runtimes: HostRuntime[] = []

afterAll(() => {
  for (const runtime of runtimes) runtime.dispose()
  dirs.cleanup()
})

/** A runtime whose store sits in a folder that is a plain file at first (so opening fails), with a clock we move. */
function blockedRuntime(): { runtime: HostRuntime; clock: { now: number }; unblock: () => void } {
  const root = dirs.make("runtime")
  const folder = join(root, "data")
  writeFileSync(folder, "not a folder")
  const config: Config = { ...defaultConfig(), database: { ...defaultConfig().database, path: join(folder, "store.db") } }
  const clock = { now: 10_000 }
  const errors = createErrorLog({ now: () => clock.now, hostLog: () => undefined })
  const runtime = createHostRuntime({ config, configDiagnostics: [], errors, faults: new Set(), env: {}, now: () => clock.now })
  runtimes.push(runtime)
  return { runtime, clock, unblock: () => rmSync(folder) }
}

describe("createHostRuntime: opening the store", () => {
  it("retries a failed open once the backoff has passed, and answers at once with the failure until then", async () => {
    const { runtime, clock, unblock } = blockedRuntime()
    await expect(runtime.database()).rejects.toThrow(/cannot create the folder of the store/)
    unblock()
    // Within the backoff the same failure comes back without a new attempt (the hook passes through at once).
    clock.now += OPEN_RETRY_FIRST_MS - 1
    await expect(runtime.database()).rejects.toThrow(/cannot create the folder of the store/)
    clock.now += 1
    const db = await runtime.database()
    expect(db.prepare("SELECT 1 AS one").get()).toEqual({ one: 1 })
    // Once open, the same connection is handed out.
    expect(await runtime.database()).toBe(db)
  })

  it("doubles the wait after each failure, up to OPEN_RETRY_MAX_MS", async () => {
    const { runtime, clock, unblock } = blockedRuntime()
    let wait = OPEN_RETRY_FIRST_MS
    for (let failure = 1; failure <= 7; failure += 1) {
      await expect(runtime.database()).rejects.toThrow()
      clock.now += wait
      wait = Math.min(OPEN_RETRY_MAX_MS, wait * 2)
    }
    // Seven failures: the next wait is the cap. Just before it, still the old failure; at it, a fresh attempt.
    await expect(runtime.database()).rejects.toThrow()
    unblock()
    clock.now += OPEN_RETRY_MAX_MS - 1
    await expect(runtime.database()).rejects.toThrow()
    clock.now += 1
    await expect(runtime.database()).resolves.toBeDefined()
  })
})

describe("createHostRuntime: warnOnce", () => {
  it("passes each message on once per process", () => {
    const warnings: string[] = []
    const errors = createErrorLog({ now: () => 0, hostLog: () => undefined })
    const runtime = createHostRuntime({
      config: defaultConfig(),
      configDiagnostics: [],
      errors,
      faults: new Set(),
      env: {},
      now: () => 0,
      warn: (message) => warnings.push(message),
    })
    runtimes.push(runtime)
    runtime.warnOnce("protected_tokens clamped")
    runtime.warnOnce("protected_tokens clamped")
    runtime.warnOnce("another")
    expect(warnings).toEqual(["protected_tokens clamped", "another"])
  })
})

describe("createHostRuntime: the store's busy timeout", () => {
  it("waits for another process's lock by default, not at all when asked not to, and waits again after", async () => {
    const config: Config = { ...defaultConfig(), database: { ...defaultConfig().database, path: join(dirs.make("busy"), "store.db"), busy_timeout_ms: 1234 } }
    const errors = createErrorLog({ now: () => 0, hostLog: () => undefined })
    const runtime = createHostRuntime({ config, configDiagnostics: [], errors, faults: new Set(), env: {}, now: () => 0 })
    runtimes.push(runtime)
    const timeout = (db: Awaited<ReturnType<HostRuntime["database"]>>): unknown => db.prepare("PRAGMA busy_timeout").get()
    expect(timeout(await runtime.database())).toEqual({ timeout: 1234 })
    expect(timeout(await runtime.database({ wait: false }))).toEqual({ timeout: 0 })
    expect(timeout(await runtime.database({ wait: false }))).toEqual({ timeout: 0 })
    expect(timeout(await runtime.database())).toEqual({ timeout: 1234 })
    expect(timeout(await runtime.database())).toEqual({ timeout: 1234 })
  })
})

describe("createHostRuntime: a session the host ended", () => {
  async function openRuntime(): Promise<HostRuntime> {
    const config: Config = { ...defaultConfig(), database: { ...defaultConfig().database, path: join(dirs.make("ended"), "store.db") } }
    const errors = createErrorLog({ now: () => 0, hostLog: () => undefined })
    const runtime = createHostRuntime({ config, configDiagnostics: [], errors, faults: new Set(), env: {}, now: () => 0 })
    runtimes.push(runtime)
    await runtime.database()
    return runtime
  }
  const info = (id: string) => ({ id, source: "opencode" as const, projectId: null, directory: null, title: null })

  it("lets go of the session and every entry kept for it, and of nothing of another session's", async () => {
    const runtime = await openRuntime()
    const registry = await runtime.sessions()
    const counter = runtime.counterFor(null)
    for (const id of ["ses_gone", "ses_kept"]) {
      registry.sessionFor(info(id), counter)
      runtime.compacting.add(id)
      runtime.reasoningRejected.add(id)
      runtime.mainStepPending.add(id)
      runtime.expanded.add(`${id}#c1`)
      runtime.facts.rememberSystem(id, ["a system prompt of some length"], counter)
      runtime.facts.rememberThinking(id, "enabled")
    }
    // An id that merely starts like the ended one is another session's.
    runtime.expanded.add("ses_gone_too#c1")
    const systemTokens = runtime.facts.fixedTokens("ses_kept")
    expect(systemTokens).toBeGreaterThan(0)
    runtime.endSession("ses_gone")
    expect(runtime.heldSessions()).toBe(1)
    expect(registry.held("ses_gone")).toBeUndefined()
    expect(registry.held("ses_kept")).toBeDefined()
    for (const set of [runtime.compacting, runtime.reasoningRejected, runtime.mainStepPending]) expect([...set]).toEqual(["ses_kept"])
    expect([...runtime.expanded]).toEqual(["ses_kept#c1", "ses_gone_too#c1"])
    expect(runtime.facts.fixedTokens("ses_gone")).toBe(0)
    expect(runtime.facts.loopThinkingRequired("ses_gone")).toBe(false)
    expect(runtime.facts.fixedTokens("ses_kept")).toBe(systemTokens)
    expect(runtime.facts.loopThinkingRequired("ses_kept")).toBe(true)
  })

  it("dispose settles every session and then holds none", async () => {
    const runtime = await openRuntime()
    const registry = await runtime.sessions()
    const session = registry.sessionFor(info("ses_open"), runtime.counterFor(null))
    expect(runtime.heldSessions()).toBe(1)
    runtime.dispose()
    expect(runtime.heldSessions()).toBe(0)
    expect(() => session.pass({} as never)).toThrow(/forgotten/)
  })
})
