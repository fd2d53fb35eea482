import { describe, expect, it } from "vitest"
import { createErrorLog } from "../../src/plugin/error-log.js"
import { PluginError } from "../../src/plugin-error.js"
import { listErrors } from "../../src/store/error-repository.js"
import { memoryStore } from "../helpers/host-messages.js"

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
      },
      {
        sessionId: null,
        at: 100,
        hook: "before",
        code: null,
        message: "recorded before the store opened",
        stack: expect.any(String),
      },
    ])
    errors.attach(db)
    expect(listErrors(db)).toHaveLength(2)
    db.close()
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
})
