import type { Hooks } from "@opencode-ai/plugin"
import { writeFileSync } from "node:fs"
import { join } from "node:path"
import { afterEach, describe, expect, it } from "vitest"
import { openDatabase } from "../../src/store/open-database.js"
import type { HostMessage } from "../../src/transcript/host-message.js"
import { assistantMessage, text, userMessage } from "../helpers/host-messages.js"
import { createPluginHarness, transform, type PluginHarness } from "../helpers/plugin-harness.js"
import { holdStoreLock, type StoreLock } from "../helpers/store-lock.js"
import { createTempDirs } from "../helpers/temp-dirs.js"

const SESSION = "ses_status"
const dirs = createTempDirs()
const open: { harnesses: PluginHarness[]; locks: StoreLock[] } = { harnesses: [], locks: [] }

afterEach(async () => {
  for (const lock of open.locks.splice(0)) lock.release()
  for (const harness of open.harnesses.splice(0)) await harness.dispose()
  dirs.cleanup()
})

function harness(dbFile: string): PluginHarness {
  const created = createPluginHarness({ dbFile })
  open.harnesses.push(created)
  return created
}

const conversation = (): HostMessage[] => [
  userMessage({ id: "msg_1", sessionID: SESSION, parts: [text("p1", "the secret plan is in plan.md")] }),
  assistantMessage({ id: "msg_2", sessionID: SESSION, parts: [text("p2", "I read the plan")] }),
]

/** The text `command.execute.before` leaves for a /ctx-status request (OpenCode's template text when it fails). */
async function statusCommand(hooks: Hooks): Promise<string> {
  const config: Record<string, unknown> = {}
  await hooks.config?.(config as Parameters<NonNullable<Hooks["config"]>>[0])
  const template = (config["command"] as Record<string, { template: string }>)["ctx-status"]?.template ?? ""
  const output = { parts: [{ type: "text", text: template }] }
  await hooks["command.execute.before"]?.(
    { command: "ctx-status", sessionID: SESSION, arguments: "" },
    output as Parameters<NonNullable<Hooks["command.execute.before"]>>[1],
  )
  expect(output.parts).toHaveLength(1)
  return output.parts[0]?.text ?? ""
}

/** What the model is sent for that request: the transform over the conversation plus the request. */
async function sentForRequest(hooks: Hooks, requestText: string): Promise<HostMessage[]> {
  const request = userMessage({ id: "msg_3", sessionID: SESSION, created: 30, parts: [text("p3", requestText)] })
  return transform(hooks, [...conversation(), request])
}

/** The report between the markers. */
function reportOf(requestText: string): string {
  const match = /^<ctx-status>\n([\s\S]*)\n<\/ctx-status>\n/.exec(requestText)
  if (!match) throw new Error(`not a status request:\n${requestText}`)
  return match[1] as string
}

describe("/ctx-status when the store cannot be used", () => {
  it("says the store is unusable, what is off and how to fix it, and sends the model nothing but that", async () => {
    const file = join(dirs.make("status"), "magic-context.db")
    writeFileSync(file, "this is not a database, it is a text file that happens to be here ".repeat(200))
    const plugin = harness(file)
    await transform(plugin.hooks, conversation())
    const requestText = await statusCommand(plugin.hooks)
    const report = reportOf(requestText)
    expect(report.split("\n").slice(0, 7)).toEqual([
      `magic-context status: session ${SESSION} (from memory: the store could not be read)`,
      "",
      expect.stringMatching(new RegExp(`^Store: unusable since \\d+s ago: ${escape(file)}: .*file is not a database`)),
      expect.stringMatching(/^ {2}Off: storing this session's messages, tags, ctx_reduce drops and history; every model call goes out unchanged/),
      expect.stringMatching(/^ {2}Nothing is lost: the messages of 1 session wait and are written once the store is usable \(next try in \d+s\)\.$/),
      `  Fix: move the file aside (mv "${file}" "${file}.broken"); magic-context then starts a new store at its next try. Or set database.path in magic-context.jsonc. OpenCode keeps its own copy of the session either way.`,
      "",
    ])
    expect(report).toContain("Last pass in this process: none")
    expect(report).toContain("Recent internal errors (the session went on unchanged):")
    expect(report).toMatch(/experimental\.chat\.messages\.transform: .*file is not a database/)
    const sent = await sentForRequest(plugin.hooks, requestText)
    expect(sent.map((message) => message.info.id)).toEqual(["msg_3"])
  })

  it("says another process holds the lock and that nothing is lost", async () => {
    const file = join(dirs.make("status"), "magic-context.db")
    ;(await openDatabase(file)).close()
    const lock = holdStoreLock(file)
    open.locks.push(lock)
    const plugin = harness(file)
    await transform(plugin.hooks, conversation())
    const report = reportOf(await statusCommand(plugin.hooks))
    expect(report).toContain(`Store: busy since 0s ago: another process holds the lock on ${file} (each try waits 300 ms).`)
    expect(report).toContain("Nothing is lost: the messages of 1 session wait and are written once the store is usable")
    expect(report).toContain(`fuser "${file}"`)
    const sent = await sentForRequest(plugin.hooks, await statusCommand(plugin.hooks))
    expect(sent.map((message) => message.info.id)).toEqual(["msg_3"])
  })

  it("sends the command's own text alone when the report cannot be built at all", async () => {
    const plugin = harness(join(dirs.make("status"), "magic-context.db"))
    const config: Record<string, unknown> = {}
    await plugin.hooks.config?.(config as Parameters<NonNullable<Hooks["config"]>>[0])
    const template = (config["command"] as Record<string, { template: string }>)["ctx-status"]?.template ?? ""
    expect(reportOf(template)).toBe("magic-context could not build its status report; OpenCode's log has the reason.")
    const sent = await sentForRequest(plugin.hooks, template)
    expect(sent.map((message) => message.info.id)).toEqual(["msg_3"])
  })

  it("reads the report from a busy store it has open, with the errors the store could not take yet", async () => {
    const file = join(dirs.make("status"), "magic-context.db")
    const plugin = harness(file)
    await transform(plugin.hooks, conversation())
    const lock = holdStoreLock(file)
    open.locks.push(lock)
    await transform(plugin.hooks, [...conversation(), userMessage({ id: "msg_9", sessionID: SESSION, parts: [text("p9", "more")] })])
    // Writes skip the store now, but the open connection can still read it (WAL): the report comes from the store.
    const report = reportOf(await statusCommand(plugin.hooks))
    expect(report.split("\n")[0]).toBe(`magic-context status: session ${SESSION}`)
    expect(report).toContain("Store: busy since")
    expect(report).toMatch(/Recent internal errors \(the session went on unchanged\):\n {2}\d+s ago experimental\.chat\.messages\.transform: database is locked/)
  })
})

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")
}
