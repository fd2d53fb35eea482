import type { Hooks } from "@opencode-ai/plugin"
import { describe, expect, it } from "vitest"
import type { Database } from "../../src/store/driver.js"
import type { HostMessage } from "../../src/transcript/host-message.js"
import { assistantMessage, completed, freshCopy, text, tool, userMessage } from "../helpers/host-messages.js"
import { loopTurn, pluginHarnesses, transform } from "../helpers/plugin-harness.js"
import { failTransactions } from "../helpers/fail-transactions.js"

/**
 * OpenCode's `session.deleted` event: what the session still owes the store (a quiet pass's raw rows and record) is
 * written first, then the session and every entry the plugin keeps for it are let go. The stored rows stay, and a
 * later pass for the same id starts from them.
 */

const SESSION = "ses_deleted"
const OTHER = "ses_kept"
const { harness } = pluginHarnesses("session-deleted")

/** `turns` exchanges of `sessionId`, each a question, a read and its answer: far below any threshold (quiet passes). */
function session(turns: number, sessionId = SESSION): HostMessage[] {
  return Array.from({ length: turns }, (_, index) => [
    userMessage({ id: `${sessionId}_u${index}`, sessionID: sessionId, created: 10 + index * 10, parts: [text(`${sessionId}_pu${index}`, `step ${index}: read the parser`)] }),
    assistantMessage({
      id: `${sessionId}_a${index}`,
      sessionID: sessionId,
      parentID: `${sessionId}_u${index}`,
      created: 11 + index * 10,
      parts: [
        text(`${sessionId}_pa${index}`, `reading file ${index}`),
        tool(`${sessionId}_pt${index}`, "read", completed({ filePath: `src/f${index}.ts` }, `export const f${index} = ${index}`)),
      ],
    }),
  ]).flat()
}

/** The stored tags of a session as "tag:part id", in tag order. */
function storedTags(db: Database, sessionId = SESSION): string[] {
  return db
    .prepare("SELECT tag, part_id FROM tags WHERE session_id = ? ORDER BY tag")
    .all([sessionId])
    .map((row) => `${Number(row["tag"])}:${String(row["part_id"])}`)
}

function passSeqs(db: Database, sessionId = SESSION): number[] {
  return db.prepare("SELECT seq FROM passes WHERE session_id = ? ORDER BY seq").all([sessionId]).map((row) => Number(row["seq"]))
}

/** Fires `session.deleted` as OpenCode 1.18.33 sends it (the id beside the session's info). */
async function deleted(hooks: Hooks, sessionId: string): Promise<void> {
  const event = { type: "session.deleted", properties: { sessionID: sessionId, info: { id: sessionId } } }
  await hooks.event?.({ event: event as never })
}

describe("a deleted session", () => {
  it("writes what its passes still owed, then is no longer held", async () => {
    const plugin = harness()
    await transform(plugin.hooks, freshCopy(session(1)))
    await loopTurn()
    const db = await plugin.runtime.database()
    await transform(plugin.hooks, freshCopy(session(2)))
    // The second pass's rows and record are owed (written a turn of the loop later, which has not come).
    expect(storedTags(db)).toHaveLength(3)
    expect(passSeqs(db)).toEqual([1])
    expect(plugin.runtime.heldSessions()).toBe(1)
    await deleted(plugin.hooks, SESSION)
    expect(storedTags(db)).toEqual([`1:${SESSION}_pu0`, `2:${SESSION}_pa0`, `3:${SESSION}_pt0`, `4:${SESSION}_pu1`, `5:${SESSION}_pa1`, `6:${SESSION}_pt1`])
    expect(passSeqs(db)).toEqual([1, 2])
    expect(plugin.runtime.heldSessions()).toBe(0)
    expect(plugin.runtime.lastPass.has(SESSION)).toBe(false)
    expect(plugin.runtime.mainStepPending.has(SESSION)).toBe(false)
    expect(plugin.errors.recent()).toEqual([])
  })

  it("is loaded from the store by a later pass for the same id: tags and pass numbers go on", async () => {
    const plugin = harness()
    const first = await transform(plugin.hooks, freshCopy(session(2)))
    await deleted(plugin.hooks, SESSION)
    const again = await transform(plugin.hooks, freshCopy(session(3)))
    await loopTurn()
    const db = await plugin.runtime.database()
    // The messages the first pass showed are shown again to the same tags; the new ones follow.
    expect(again.slice(0, first.length)).toEqual(first)
    expect(storedTags(db).map((row) => Number(row.split(":")[0]))).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9])
    expect(passSeqs(db)).toEqual([1, 2])
    expect(plugin.runtime.heldSessions()).toBe(1)
    expect(plugin.errors.recent()).toEqual([])
  })

  it("leaves every other session held as it was", async () => {
    const plugin = harness()
    await transform(plugin.hooks, freshCopy(session(1, OTHER)))
    await transform(plugin.hooks, freshCopy(session(1)))
    expect(plugin.runtime.heldSessions()).toBe(2)
    await deleted(plugin.hooks, SESSION)
    expect(plugin.runtime.heldSessions()).toBe(1)
    expect(plugin.runtime.lastPass.has(OTHER)).toBe(true)
    const registry = await plugin.runtime.sessions()
    expect(registry.held(OTHER)).toBeDefined()
    expect(registry.held(SESSION)).toBeUndefined()
  })

  it("stays held with what it owes when the store cannot take it, and the error is recorded", async () => {
    const plugin = harness()
    await transform(plugin.hooks, freshCopy(session(2)))
    const db = await plugin.runtime.database()
    const restore = failTransactions(db)
    await deleted(plugin.hooks, SESSION)
    restore()
    expect(plugin.errors.recent().map((error) => [error.hook, error.sessionId, error.message])).toEqual([["event", SESSION, "store gone"]])
    expect(plugin.runtime.heldSessions()).toBe(1)
    // Nothing seen is lost: the owed rows and record are still there for the next settle.
    plugin.runtime.settle(SESSION)
    expect(storedTags(db)).toHaveLength(6)
    expect(passSeqs(db)).toEqual([1])
  })

  it("is read from the session's info as the SDK types the event, without the id beside it", async () => {
    const plugin = harness()
    await transform(plugin.hooks, freshCopy(session(1)))
    await plugin.hooks.event?.({ event: { type: "session.deleted", properties: { info: { id: SESSION } } } as never })
    expect(plugin.runtime.heldSessions()).toBe(0)
  })

  it("an event without an id changes nothing and throws nothing", async () => {
    const plugin = harness()
    await transform(plugin.hooks, freshCopy(session(1)))
    await plugin.hooks.event?.({ event: { type: "session.deleted", properties: {} } as never })
    expect(plugin.runtime.heldSessions()).toBe(1)
    expect(plugin.errors.recent()).toEqual([])
  })
})
