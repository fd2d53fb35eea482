import { join } from "node:path"
import { afterEach, describe, expect, it } from "vitest"
import { createErrorLog } from "../../src/host/error-log.js"
import { PluginError } from "../../src/plugin-error.js"
import { listErrors } from "../../src/store/error-repository.js"
import { openDatabase } from "../../src/store/open-database.js"
import { memoryStore } from "../helpers/host-messages.js"
import { holdStoreLock } from "../helpers/store-lock.js"
import { createTempDirs } from "../helpers/temp-dirs.js"

const dirs = createTempDirs()
afterEach(() => dirs.cleanup())

const recordingLog = (now = () => 1234) => {
  const lines: string[] = []
  const errors = createErrorLog({ now, hostLog: (line) => lines.push(line) })
  return { errors, lines }
}

describe("createErrorLog", () => {
  it("keeps a PluginError with its code, newest first, and tells the host", () => {
    const { errors, lines } = recordingLog()
    errors.record({ hook: "first", sessionId: "ses_1", error: new Error("plain") })
    errors.record({ hook: "second", sessionId: null, error: new PluginError("fault_injected", "injected") })
    expect(errors.recent().map((entry) => [entry.hook, entry.sessionId, entry.code, entry.message, entry.at])).toEqual([
      ["second", null, "fault_injected", "injected", 1234],
      ["first", "ses_1", null, "plain", 1234],
    ])
    expect(errors.recent()[0]?.stack).toContain("injected")
    expect(lines).toEqual(["first failed open: plain", "second failed open: injected"])
  })

  it.each([
    ["a string", "just text", "just text"],
    ["a number", 42, "42"],
    ["null", null, "null"],
    ["an object", { reason: "x" }, "[object Object]"],
  ])("records a thrown %s as text without a stack", (_name, thrown, message) => {
    const { errors } = recordingLog()
    errors.record({ hook: "h", sessionId: null, error: thrown })
    expect(errors.recent()[0]).toMatchObject({ message, stack: null, code: null })
  })

  it("keeps only the newest 50 errors in memory", () => {
    const { errors } = recordingLog()
    for (let index = 0; index < 60; index += 1) {
      errors.record({ hook: `h${index}`, sessionId: null, error: new Error("x") })
    }
    expect(errors.recent()).toHaveLength(50)
    expect(errors.recent()[0]?.hook).toBe("h59")
    expect(errors.recent().at(-1)?.hook).toBe("h10")
  })

  it("writes to the store once one is attached, including the errors recorded before", async () => {
    const db = await memoryStore()
    let clock = 100
    const { errors } = recordingLog(() => clock)
    errors.record({ hook: "before", sessionId: null, error: new Error("recorded before the store opened") })
    expect(listErrors(db)).toEqual([])
    errors.attach(db)
    clock = 200
    errors.record({ hook: "after", sessionId: "ses_1", error: new PluginError("db_open_failed", "stored") })
    expect(listErrors(db)).toEqual([
      {
        sessionId: "ses_1",
        at: 200,
        hook: "after",
        code: "db_open_failed",
        message: "stored",
        stack: expect.any(String),
        instanceId: errors.instanceId,
        directory: null,
      },
      {
        sessionId: null,
        at: 100,
        hook: "before",
        code: null,
        message: "recorded before the store opened",
        stack: expect.any(String),
        instanceId: errors.instanceId,
        directory: null,
      },
    ])
    errors.attach(db)
    expect(listErrors(db)).toHaveLength(2)
    db.close()
  })

  it("stamps every error with its host instance and project directory, a new instance per log unless one is given", () => {
    const given = createErrorLog({ now: () => 1, hostLog: () => undefined, instanceId: "77:abc", directory: "/work/project" })
    given.record({ hook: "dispose", sessionId: null, error: new Error("x") })
    expect(given.recent()[0]).toMatchObject({ instanceId: "77:abc", directory: "/work/project" })
    const first = createErrorLog({ now: () => 1, hostLog: () => undefined })
    const second = createErrorLog({ now: () => 1, hostLog: () => undefined })
    expect(first.instanceId).toMatch(new RegExp(`^${process.pid}:[0-9a-f-]{36}$`))
    expect(second.instanceId).not.toBe(first.instanceId)
  })

  it("never throws, even when the store and the host log fail", async () => {
    const db = await memoryStore()
    const errors = createErrorLog({
      now: () => 1,
      hostLog: () => {
        throw new Error("host log is down")
      },
    })
    errors.attach(db)
    db.close()
    expect(() => errors.record({ hook: "h", sessionId: null, error: new Error("still kept") })).not.toThrow()
    expect(errors.recent().map((entry) => entry.message)).toEqual(["still kept"])
  })

  it("never waits for a locked store: keeps the error in memory at once and writes it once the store is free", async () => {
    const file = join(dirs.make("error-log"), "store.db")
    const db = await openDatabase(file)
    const { errors } = recordingLog()
    errors.attach(db)
    const lock = holdStoreLock(file)
    let released = false
    try {
      const started = performance.now()
      errors.record({ hook: "transform", sessionId: "ses_1", error: new Error("database is locked") })
      expect(performance.now() - started).toBeLessThan(100)
      expect(errors.recent().map((entry) => entry.message)).toEqual(["database is locked"])
      expect(errors.unsaved().map((entry) => entry.hook)).toEqual(["transform"])
      expect(errors.flush()).toBe(false)
      lock.release()
      released = true
      expect(errors.flush()).toBe(true)
      expect(errors.unsaved()).toEqual([])
      expect(listErrors(db).map((entry) => [entry.hook, entry.message])).toEqual([["transform", "database is locked"]])
      // Written once: a second flush has nothing left to write.
      expect(errors.flush()).toBe(true)
      expect(listErrors(db)).toHaveLength(1)
      // The lock is the store's, not the connection's: its busy timeout is as it was.
      expect(db.prepare("PRAGMA busy_timeout").get()).toEqual({ timeout: 5000 })
    } finally {
      if (!released) lock.release()
      db.close()
    }
  })
})
