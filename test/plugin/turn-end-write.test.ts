import type { Event } from "@opencode-ai/sdk"
import { describe, expect, it } from "vitest"
import { STATUS_MARKER } from "../../src/plugin/status-command.js"
import { openDatabase } from "../../src/store/open-database.js"
import type { HostMessage } from "../../src/transcript/host-message.js"
import { assistantMessage, text, userMessage } from "../helpers/host-messages.js"
import { pluginHarnesses, transform, type PluginHarness } from "../helpers/plugin-harness.js"
import { holdStoreLock } from "../helpers/store-lock.js"

const SESSION = "ses_turn"
const { harness, openStore } = pluginHarnesses("turn-end")

const question = (id: string, body: string, created = 10): HostMessage =>
  userMessage({ id, sessionID: SESSION, created, parts: [text(`${id}_text`, body)] })
const reply = (id: string, body: string, parentID = "", created = 11): HostMessage =>
  assistantMessage({ id, sessionID: SESSION, created, parentID, parts: [text(`${id}_text`, body)] })

async function idle(plugin: PluginHarness, sessionID = SESSION): Promise<void> {
  const event = { type: "session.idle", properties: { sessionID } } as Event
  await plugin.hooks.event?.({ event })
}

async function stored(plugin: PluginHarness): Promise<{ id: string; text: string | null; tag: number | null }[]> {
  const db = await openStore(plugin.runtime.databaseFile)
  return db
    .prepare(
      `SELECT m.id, json_extract(p.content_json, '$.text') AS text, t.tag FROM messages m
       JOIN parts p ON p.session_id = m.session_id AND p.message_id = m.id
       LEFT JOIN tags t ON t.session_id = m.session_id AND t.part_id = p.id
       WHERE m.session_id = ? ORDER BY m.seq`,
    )
    .all([SESSION])
    .map((row) => ({ id: String(row["id"]), text: row["text"] === null ? null : String(row["text"]), tag: row["tag"] === null ? null : Number(row["tag"]) }))
}

describe("the final reply of a turn", () => {
  it("is stored, tagged, when the session goes idle, not only at the next pass", async () => {
    const plugin = harness()
    await transform(plugin.hooks, [question("msg_1", "fix the build")])
    plugin.hostMessages.set(SESSION, [question("msg_1", "fix the build"), reply("msg_2", "Fixed: the import was wrong.")])
    await idle(plugin)
    expect(await stored(plugin)).toEqual([
      { id: "msg_1", text: "fix the build", tag: 1 },
      { id: "msg_2", text: "Fixed: the import was wrong.", tag: 2 },
    ])
    // The next pass finds it stored and gives it the same tag.
    const next = await transform(plugin.hooks, [...(plugin.hostMessages.get(SESSION) ?? []), question("msg_3", "thanks", 20)])
    expect(next[1]?.parts[0]).toMatchObject({ text: "§2§ Fixed: the import was wrong." })
    expect(plugin.errors.recent()).toEqual([])
  })

  it("leaves out a /ctx-status exchange and what OpenCode lists before the messages stored", async () => {
    const plugin = harness()
    // The pass saw the list from the host's last compaction on: msg_3 and msg_4.
    await transform(plugin.hooks, [question("msg_3", "go on", 30), reply("msg_4", "going", "msg_3", 31)])
    plugin.hostMessages.set(SESSION, [
      question("msg_1", "before the compaction", 10),
      reply("msg_2", "summarized away", "msg_1", 11),
      question("msg_3", "go on", 30),
      reply("msg_4", "going", "msg_3", 31),
      question("msg_5", `${STATUS_MARKER}\nthe report`, 40),
      reply("msg_6", "the report, shown", "msg_5", 41),
    ])
    await idle(plugin)
    expect((await stored(plugin)).map((row) => row.id)).toEqual(["msg_3", "msg_4"])
  })

  it("is not fetched for a session no pass ran for in this process, even while another session's rows wait", async () => {
    const plugin = harness()
    plugin.hostMessages.set(SESSION, [question("msg_1", "elsewhere"), reply("msg_2", "not ours")])
    await idle(plugin)
    // Another session's pass meets a locked store: its rows wait.
    ;(await openDatabase(plugin.runtime.databaseFile)).close()
    const lock = holdStoreLock(plugin.runtime.databaseFile)
    await transform(plugin.hooks, [userMessage({ id: "msg_x", sessionID: "ses_other", parts: [text("x", "other")] })])
    lock.release()
    await idle(plugin)
    expect(plugin.listed).toEqual([])
    expect(await stored(plugin)).toEqual([])
  })

  it("waits while the store is locked and is stored once it is free", async () => {
    const plugin = harness()
    await transform(plugin.hooks, [question("msg_1", "fix the build")])
    plugin.hostMessages.set(SESSION, [question("msg_1", "fix the build"), reply("msg_2", "Fixed.")])
    const lock = holdStoreLock(plugin.runtime.databaseFile)
    const started = performance.now()
    await idle(plugin)
    // Never waits for the lock: the write is retried later.
    expect(performance.now() - started).toBeLessThan(100)
    expect(plugin.errors.recent()[0]).toMatchObject({ hook: "event", message: expect.stringMatching(/database is locked/) })
    lock.release()
    await plugin.advance(1_000)
    expect((await stored(plugin)).map((row) => row.id)).toEqual(["msg_1", "msg_2"])
  })

  it("is still written when the process disposes right after the session went idle", async () => {
    const plugin = harness()
    await transform(plugin.hooks, [question("msg_1", "one turn")])
    plugin.hostMessages.set(SESSION, [question("msg_1", "one turn"), reply("msg_2", "The answer.")])
    // OpenCode does not await the event hook; `opencode run` disposes the instance as soon as the session is idle.
    void idle(plugin)
    await plugin.dispose()
    expect((await stored(plugin)).map((row) => row.id)).toEqual(["msg_1", "msg_2"])
  })

  it("stops retrying once disposed, leaving no timer behind", async () => {
    const plugin = harness()
    await transform(plugin.hooks, [question("msg_1", "fix the build")])
    plugin.hostMessages.set(SESSION, [question("msg_1", "fix the build"), reply("msg_2", "Fixed.")])
    const lock = holdStoreLock(plugin.runtime.databaseFile)
    await idle(plugin)
    expect(plugin.timers()).toHaveLength(1)
    await plugin.dispose()
    await plugin.advance(1_000)
    lock.release()
    expect(plugin.timers()).toEqual([])
  })
})
