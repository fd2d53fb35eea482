import { describe, expect, it } from "vitest"
import { statusReport } from "../../src/host/status-report.js"
import { listPasses } from "../../src/store/pass-repository.js"
import type { HostMessage } from "../../src/transcript/host-message.js"
import { assistantMessage, freshCopy, text, userMessage } from "../helpers/host-messages.js"
import { loopTurn, pluginHarnesses, transform, type PluginHarness } from "../helpers/plugin-harness.js"
import { failTransactions } from "../helpers/fail-transactions.js"

/**
 * A quiet pass (nothing but its own record to write) leaves its record to be stored a turn of the event loop after the
 * transform hook returned; whatever reads or writes passes before that stores it first, in order.
 */

const SESSION = "ses_owed_record"
const { harness, openStore } = pluginHarnesses("owed-record")

/** `turns` short exchanges: far below any threshold, so every pass is a quiet replay. */
function session(turns: number): HostMessage[] {
  return Array.from({ length: turns }, (_, index) => [
    userMessage({ id: `msg_u${index}`, sessionID: SESSION, created: 10 + index * 10, parts: [text(`prt_u${index}`, `step ${index}: fix the parser`)] }),
    assistantMessage({ id: `msg_a${index}`, sessionID: SESSION, parentID: `msg_u${index}`, created: 11 + index * 10, parts: [text(`prt_a${index}`, `done with step ${index}`)] }),
  ]).flat()
}

/** The stored passes' numbers, oldest first, read through the runtime's open store (no turn of the loop in between). */
async function storedSeqs(plugin: PluginHarness): Promise<number[]> {
  return listPasses(await plugin.runtime.database(), SESSION)
    .map((pass) => pass.seq)
    .reverse()
}

describe("a quiet pass's record", () => {
  it("is stored a turn of the event loop after the hook returned, as the pass recorded it", async () => {
    const plugin = harness()
    await transform(plugin.hooks, freshCopy(session(2)))
    expect(await storedSeqs(plugin)).toEqual([])
    await loopTurn()
    const [stored] = listPasses(await plugin.runtime.database(), SESSION)
    expect(stored).toMatchObject({ seq: 1, trigger: "transform", decision: "replay", messageCount: 4, newParts: 4, newTags: 4 })
    expect(stored?.detail).toMatchObject({ reason: expect.any(String), newTags: [1, 2, 3, 4] })
    expect(plugin.errors.recent()).toEqual([])
  })

  it("is written first by the next pass when that comes before the loop's turn, so the passes stay in order", async () => {
    const plugin = harness()
    await transform(plugin.hooks, freshCopy(session(2)))
    await transform(plugin.hooks, freshCopy(session(3)))
    // The second pass found the first one's record owed and committed both.
    expect(await storedSeqs(plugin)).toEqual([1, 2])
    await transform(plugin.hooks, freshCopy(session(3)))
    expect(await storedSeqs(plugin)).toEqual([1, 2])
    await loopTurn()
    expect(await storedSeqs(plugin)).toEqual([1, 2, 3])
    expect(plugin.errors.recent()).toEqual([])
  })

  it("is stored before /ctx-status reads the passes, and by dispose when nothing else came", async () => {
    const plugin = harness()
    await transform(plugin.hooks, freshCopy(session(2)))
    const report = await statusReport({ runtime: plugin.runtime, sessionId: SESSION, waitingSessions: 0, now: Date.now(), hostCompaction: null })
    expect(report).not.toMatch(/no pass/i)
    expect(await storedSeqs(plugin)).toEqual([1])

    const second = harness()
    await transform(second.hooks, freshCopy(session(2)))
    await second.dispose()
    const db = await openStore(second.runtime.databaseFile)
    expect(listPasses(db, SESSION).map((pass) => pass.seq)).toEqual([1])
  })

  it("of a session the runtime forgot goes with it: the state loaded afresh numbers its passes from the store", async () => {
    const plugin = harness()
    await transform(plugin.hooks, freshCopy(session(2)))
    plugin.runtime.forgetSession(SESSION)
    await transform(plugin.hooks, freshCopy(session(3)))
    // Both passes' turns of the loop come; the forgotten state's record is not written over the new one's number.
    await loopTurn()
    const stored = listPasses(await plugin.runtime.database(), SESSION)
    expect(stored.map((pass) => [pass.seq, pass.messageCount])).toEqual([[1, 6]])
    expect(plugin.errors.recent()).toEqual([])
  })

  it("stays owed when its write fails after the call (recorded, never thrown), and the next pass writes it", async () => {
    const plugin = harness()
    await transform(plugin.hooks, freshCopy(session(2)))
    const restore = failTransactions(await plugin.runtime.database())
    await loopTurn()
    restore()
    expect(plugin.errors.recent().map((error) => [error.hook, error.message])).toEqual([["pass.settle", "store gone"]])
    expect(await storedSeqs(plugin)).toEqual([])
    await transform(plugin.hooks, freshCopy(session(3)))
    expect(await storedSeqs(plugin)).toEqual([1, 2])
  })

  it("that /ctx-status or dispose cannot write is recorded, and the report and the shutdown go on", async () => {
    const plugin = harness()
    await transform(plugin.hooks, freshCopy(session(2)))
    const restore = failTransactions(await plugin.runtime.database())
    const report = await statusReport({ runtime: plugin.runtime, sessionId: SESSION, waitingSessions: 0, now: Date.now(), hostCompaction: null })
    // The report reads what is stored: no pass yet, the failed write among its errors.
    expect(report).toMatch(/No pass has run for this session yet/)
    expect(report).toContain("store gone")
    await plugin.dispose()
    restore()
    expect(plugin.errors.recent().map((error) => [error.hook, error.message])).toEqual([
      ["dispose", "store gone"],
      ["pass.settle", "store gone"],
    ])
  })
})
