import { join } from "node:path"
import { afterEach, describe, expect, it } from "vitest"
import type { HostMessage } from "../../src/transcript/host-message.js"
import { STATUS_MARKER } from "../../src/plugin/status-command.js"
import { assistantMessage, freshCopy, text, userMessage } from "../helpers/host-messages.js"
import { createPluginHarness, transform, type PluginHarness } from "../helpers/plugin-harness.js"
import { createTempDirs } from "../helpers/temp-dirs.js"

const SESSION = "ses_status_hook"
const dirs = createTempDirs()
const open: PluginHarness[] = []

afterEach(async () => {
  for (const harness of open.splice(0)) await harness.dispose()
  dirs.cleanup()
})

function harness(dbFile: string): PluginHarness {
  const created = createPluginHarness({ dbFile })
  open.push(created)
  return created
}

const turn = (index: number): HostMessage[] => [
  userMessage({ id: `msg_u${index}`, sessionID: SESSION, created: index * 10, parts: [text(`u${index}`, `step ${index}: fix the parser`)] }),
  assistantMessage({ id: `msg_a${index}`, sessionID: SESSION, parentID: `msg_u${index}`, created: index * 10 + 1, parts: [text(`a${index}`, `done with step ${index}`)] }),
]
const request = userMessage({ id: "msg_status", sessionID: SESSION, created: 35, parts: [text("s1", `${STATUS_MARKER}\nthe report`)] })
const reply = assistantMessage({ id: "msg_status_reply", sessionID: SESSION, parentID: "msg_status", created: 36, parts: [text("s2", "the report")] })

const ids = (messages: readonly HostMessage[]): string[] => messages.map((message) => message.info.id)

describe("the /ctx-status exchange across transform calls", () => {
  it("is left out of every later prompt after calls that had none, and after a restart", async () => {
    const file = join(dirs.make("status-hook"), "magic-context.db")
    const plugin = harness(file)
    // Calls without any status exchange: the session is known free of one.
    await transform(plugin.hooks, freshCopy([...turn(1)]))
    await transform(plugin.hooks, freshCopy([...turn(1), ...turn(2), ...turn(3)]))
    // The request arrives as the newest message: the model is sent it alone.
    expect(ids(await transform(plugin.hooks, freshCopy([...turn(1), ...turn(2), ...turn(3), request])))).toEqual(["msg_status"])
    // Every later prompt leaves the request and its reply out.
    const later = [...turn(1), ...turn(2), ...turn(3), request, reply, ...turn(4)]
    expect(ids(await transform(plugin.hooks, freshCopy(later)))).toEqual(ids([...turn(1), ...turn(2), ...turn(3), ...turn(4)]))
    expect(ids(await transform(plugin.hooks, freshCopy([...later, ...turn(5)])))).not.toContain("msg_status")
    expect(plugin.runtime.errors.recent()).toEqual([])
    // A new process has not seen the request: its first call finds the exchange in the history.
    await plugin.dispose()
    open.splice(open.indexOf(plugin), 1)
    const restarted = harness(file)
    const sent = ids(await transform(restarted.hooks, freshCopy([...later, ...turn(5)])))
    expect(sent).not.toContain("msg_status")
    expect(sent).not.toContain("msg_status_reply")
    expect(sent).toContain("msg_u5")
  })
})
