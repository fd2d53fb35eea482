import { join } from "node:path"
import { afterEach, describe, expect, it } from "vitest"
import { statusReport } from "../../src/host/status-report.js"
import { listErrors } from "../../src/store/error-repository.js"
import { openDatabase } from "../../src/store/open-database.js"
import type { HostMessage } from "../../src/transcript/host-message.js"
import { assistantMessage, freshCopy, text, userMessage } from "../helpers/host-messages.js"
import { createPluginHarness, transform, type PluginHarness } from "../helpers/plugin-harness.js"
import { createTempDirs } from "../helpers/temp-dirs.js"

const dirs = createTempDirs()
const harnesses: PluginHarness[] = []
afterEach(async () => {
  for (const harness of harnesses.splice(0)) await harness.dispose()
  dirs.cleanup()
})

function session(sessionID: string): HostMessage[] {
  return [
    userMessage({ id: `msg_u_${sessionID}`, sessionID, created: 10, parts: [text(`prt_u_${sessionID}`, "fix the parser")] }),
    assistantMessage({ id: `msg_a_${sessionID}`, sessionID, parentID: `msg_u_${sessionID}`, created: 11, parts: [text(`prt_a_${sessionID}`, "done")] }),
  ]
}

/** Two plugin runtimes (two host processes, or two projects of one) writing the same store, each with a session. */
async function twoInstances(): Promise<{ first: PluginHarness; second: PluginHarness; file: string }> {
  const file = join(dirs.make("status-report"), "magic-context.db")
  const first = createPluginHarness({ dbFile: file })
  const second = createPluginHarness({ dbFile: file })
  harnesses.push(first, second)
  await transform(first.hooks, freshCopy(session("ses_first")))
  await transform(second.hooks, freshCopy(session("ses_second")))
  return { first, second, file }
}

const report = (plugin: PluginHarness, sessionId: string): Promise<string> =>
  statusReport({ runtime: plugin.runtime, sessionId, waitingSessions: 0, now: plugin.clock.now, hostCompaction: null })

describe("statusReport", () => {
  it("lists an error without a session only in the report of the instance that had it", async () => {
    const { first, second, file } = await twoInstances()
    first.errors.record({ hook: "dispose", sessionId: null, error: new Error("the first instance's own") })
    expect(first.errors.flush()).toBe(true)

    expect(await report(first, "ses_first")).toContain("dispose: the first instance's own")
    expect(await report(second, "ses_second")).not.toContain("the first instance's own")
    expect(await report(second, "ses_second")).toContain("Recent internal errors: none")

    // Stored with the instance it came from, which is how another process's report leaves it out.
    const db = await openDatabase(file)
    try {
      expect(listErrors(db)).toEqual([expect.objectContaining({ sessionId: null, instanceId: first.errors.instanceId })])
    } finally {
      db.close()
    }
  })

  it("shows a stored sessionless error of its own once, and an error about a session whoever recorded it", async () => {
    const { first, second } = await twoInstances()
    first.errors.record({ hook: "dispose", sessionId: null, error: new Error("written, then forgotten") })
    expect(first.errors.flush()).toBe(true)
    // A report reads the errors the store holds: the ring is only for those not written yet.
    const shown = (await report(first, "ses_first")).split("\n").filter((line) => line.includes("written, then forgotten"))
    expect(shown).toHaveLength(1)
    second.errors.record({ hook: "transform", sessionId: "ses_first", error: new Error("about the first's session") })
    expect(second.errors.flush()).toBe(true)
    // An error about a session is that session's, whoever recorded it.
    expect(await report(first, "ses_first")).toContain("about the first's session")
  })
})
