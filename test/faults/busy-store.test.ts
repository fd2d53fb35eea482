import { join } from "node:path"
import { afterAll, afterEach, describe, expect, it } from "vitest"
import { listErrors } from "../../src/store/error-repository.js"
import { openDatabase } from "../../src/store/open-database.js"
import type { Database } from "../../src/store/driver.js"
import type { HostMessage } from "../../src/transcript/host-message.js"
import { assistantMessage, text, userMessage } from "../helpers/host-messages.js"
import { createPluginHarness, loopTurn, transform, type PluginHarness } from "../helpers/plugin-harness.js"
import { holdStoreLock, type StoreLock } from "../helpers/store-lock.js"
import { createTempDirs } from "../helpers/temp-dirs.js"
import { probeTally } from "./probe-tally.js"

const SESSION = "ses_busy"
/** What a pass may add to a turn while the store is locked: the busy timeout (300 ms by default) and some slack. */
const LOCKED_PASS_BUDGET_MS = 300 + 400

const dirs = createTempDirs()
const open: { harnesses: PluginHarness[]; locks: StoreLock[]; dbs: Database[] } = { harnesses: [], locks: [], dbs: [] }

const tally = probeTally("busy store: passes, turn ends and first use with another process holding the lock")
afterAll(() => tally.record())

afterEach(async () => {
  for (const lock of open.locks.splice(0)) lock.release()
  for (const harness of open.harnesses.splice(0)) await harness.dispose()
  for (const db of open.dbs.splice(0)) db.close()
  dirs.cleanup()
})

/** `exchanges` user/assistant pairs of the session, fresh objects each call (as OpenCode hands them). */
function conversation(exchanges: number): HostMessage[] {
  return Array.from({ length: exchanges }, (_, index) => {
    const n = index + 1
    return [
      userMessage({ id: `msg_${n}_u`, sessionID: SESSION, created: n * 10, parts: [text(`prt_${n}_u`, `question ${n}`)] }),
      assistantMessage({ id: `msg_${n}_a`, sessionID: SESSION, created: n * 10 + 1, parts: [text(`prt_${n}_a`, `answer ${n}`)] }),
    ]
  }).flat()
}

function harness(faults: string[] = []): PluginHarness {
  const created = createPluginHarness({ dbFile: join(dirs.make("busy"), "magic-context.db"), faults })
  open.harnesses.push(created)
  return created
}

function lock(file: string): StoreLock {
  const held = holdStoreLock(file)
  open.locks.push(held)
  return {
    release() {
      open.locks.splice(open.locks.indexOf(held), 1)
      held.release()
    },
  }
}

/** A separate connection to read what the plugin stored. */
async function reader(file: string): Promise<Database> {
  const db = await openDatabase(file)
  open.dbs.push(db)
  return db
}

function storedMessageIds(db: Database): string[] {
  return db
    .prepare("SELECT id FROM messages WHERE session_id = ? ORDER BY seq")
    .all([SESSION])
    .map((row) => String(row["id"]))
}

/** Asserts the store holds exactly the messages of `expected`, in order; a try that lost any is noted first. */
function expectAllStored(db: Database, expected: readonly HostMessage[]): void {
  const ids = expected.map((message) => message.info.id)
  const stored = storedMessageIds(db)
  if (JSON.stringify(stored) !== JSON.stringify(ids)) tally.lost()
  expect(stored).toEqual(ids)
}

function storedTags(db: Database): number[] {
  return db
    .prepare("SELECT tag FROM tags WHERE session_id = ? ORDER BY tag")
    .all([SESSION])
    .map((row) => Number(row["tag"]))
}

async function timed(body: () => Promise<unknown>): Promise<number> {
  const started = performance.now()
  await body()
  return performance.now() - started
}

describe("a store another process holds locked", () => {
  it("tags a pass whose rows wait for the turn after it, then passes the next one through within the busy timeout", async () => {
    tally.tried()
    const plugin = harness()
    const file = plugin.runtime.databaseFile
    await transform(plugin.hooks, conversation(1))
    await loopTurn()
    const held = lock(file)
    // A pass that reduces nothing leaves its rows to be written once it has returned: it does not wait for the lock.
    const tagged = conversation(2)
    expect(await timed(() => transform(plugin.hooks, tagged))).toBeLessThan(LOCKED_PASS_BUDGET_MS)
    expect(tagged.at(-1)?.parts[0]).toMatchObject({ text: "§4§ answer 2" })
    // Written a turn of the loop later, they meet the lock: the error is kept in memory at once, never thrown.
    await loopTurn()
    expect(plugin.errors.recent()[0]).toMatchObject({ hook: "pass.settle", sessionId: SESSION, message: expect.stringMatching(/database is locked/) })
    // The next pass must write them first: it passes the host's messages through unchanged.
    const messages = conversation(3)
    const before = JSON.stringify(messages)
    const elapsed = await timed(() => transform(plugin.hooks, messages))
    expect(JSON.stringify(messages)).toBe(before)
    expect(elapsed).toBeLessThan(LOCKED_PASS_BUDGET_MS)
    expect(plugin.errors.recent()[0]).toMatchObject({ hook: "experimental.chat.messages.transform", sessionId: SESSION })
    held.release()
    // Once the store is free, the rows the locked passes saw are stored, to the tags the first one showed.
    await plugin.advance(2_000)
    const again = await transform(plugin.hooks, conversation(3))
    await loopTurn()
    expect(again.map((message) => message.parts[0]?.type === "text" ? message.parts[0].text : null).slice(2, 4)).toEqual(["§3§ question 2", "§4§ answer 2"])
    expectAllStored(await reader(file), conversation(3))
    expect(storedTags(await reader(file))).toEqual([1, 2, 3, 4, 5, 6])
    tally.survived()
  })

  it("stores every message the locked passes saw at the first pass after the lock is released", async () => {
    tally.tried()
    const plugin = harness()
    const file = plugin.runtime.databaseFile
    await transform(plugin.hooks, conversation(1))
    // The turn of the loop a request gives: the pass's rows are written there.
    await loopTurn()
    const held = lock(file)
    // Three passes while locked, the list growing as OpenCode's does; the first waits, the others skip the store.
    const timings = [await timed(() => transform(plugin.hooks, conversation(2)))]
    await plugin.advance(100)
    timings.push(await timed(() => transform(plugin.hooks, conversation(3))))
    timings.push(await timed(() => transform(plugin.hooks, conversation(4))))
    held.release()
    const db = await reader(file)
    expect(storedMessageIds(db)).toEqual(conversation(1).map((message) => message.info.id))
    // Past the backoff, the next pass (a longer list again) stores everything, in order, tags gap-free.
    await plugin.advance(2_000)
    const messages = await transform(plugin.hooks, conversation(5))
    await loopTurn()
    expectAllStored(db, conversation(5))
    expect(storedTags(db)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10])
    // The pass after the lock tags what it sends.
    expect(messages.at(-1)?.parts[0]).toMatchObject({ text: "§10§ answer 5" })
    expect(Math.max(...timings)).toBeLessThan(LOCKED_PASS_BUDGET_MS)
    // Skipped passes answer at once (no second wait).
    expect(Math.max(timings[1] ?? Infinity, timings[2] ?? Infinity)).toBeLessThan(100)
    // The errors kept in memory while locked are in the errors table now.
    // The first locked pass owed its rows, so the lock met their write after it (newest first).
    expect(listErrors(db).map((entry) => entry.hook)).toEqual([
      "experimental.chat.messages.transform",
      "experimental.chat.messages.transform",
      "pass.settle",
    ])
    expect(plugin.errors.unsaved()).toEqual([])
    tally.survived()
  })

  it("stores and tags at the first pass after the lock is gone, even before the backoff has passed", async () => {
    tally.tried()
    const plugin = harness()
    const file = plugin.runtime.databaseFile
    await transform(plugin.hooks, conversation(1))
    // The turn of the loop a request gives: the pass's rows are written there.
    await loopTurn()
    const held = lock(file)
    await transform(plugin.hooks, conversation(2))
    await plugin.advance(100)
    // While locked, a pass in the backoff tries without waiting.
    expect(await timed(() => transform(plugin.hooks, conversation(3)))).toBeLessThan(100)
    held.release()
    await plugin.advance(100)
    const messages = await transform(plugin.hooks, conversation(4))
    expect(messages.at(-1)?.parts[0]).toMatchObject({ text: "§8§ answer 4" })
    await loopTurn()
    expectAllStored(await reader(file), conversation(4))
    expect(plugin.runtime.storeFailure()).toBeNull()
    tally.survived()
  })

  it("stores a turn that ended while the store was locked once it is free, without another pass", async () => {
    tally.tried()
    const plugin = harness()
    const file = plugin.runtime.databaseFile
    await transform(plugin.hooks, conversation(1))
    // The turn of the loop a request gives: the pass's rows are written there.
    await loopTurn()
    const held = lock(file)
    await transform(plugin.hooks, conversation(2))
    held.release()
    const db = await reader(file)
    expect(storedMessageIds(db)).toHaveLength(2)
    // The retry runs when the backoff has passed, by itself.
    await plugin.advance(1_000)
    expectAllStored(db, conversation(2))
    // The locked pass wrote nothing: its rows waited for a turn of the loop after it, when the store was free.
    expect(listErrors(db)).toHaveLength(0)
    tally.survived()
  })

  // (A fresh rollback-mode file locked by another process no longer occurs: stores are created whole, in WAL mode,
  // and an empty file at the path is refused as no store of ours; test/faults/broken-stores.test.ts covers that.)
  it("passes through at first use when a store in WAL mode is locked (writers blocked), and stores the session once it is free", async () => {
    tally.tried()
    const plugin = harness()
    const file = plugin.runtime.databaseFile
    ;(await openDatabase(file)).close()
    const held = lock(file)
    const before = JSON.stringify(conversation(2))
    const messages = conversation(2)
    const elapsed = await timed(() => transform(plugin.hooks, messages))
    expect(JSON.stringify(messages)).toBe(before)
    expect(elapsed).toBeLessThan(LOCKED_PASS_BUDGET_MS)
    expect(plugin.runtime.storeFailure()).toMatchObject({ kind: "busy", failures: 1 })
    // Still locked at the retry: it fails without waiting (OpenCode's process would stall) and backs off further.
    const retry = await timed(() => plugin.advance(1_000))
    expect(plugin.runtime.storeFailure()).toMatchObject({ kind: "busy", failures: 2 })
    expect(retry).toBeLessThan(100)
    held.release()
    await plugin.advance(2_000)
    expect(plugin.runtime.storeFailure()).toBeNull()
    const db = await reader(file)
    expectAllStored(db, conversation(2))
    expect(listErrors(db).map((entry) => entry.message)).toEqual([expect.stringMatching(/database is locked/)])
    tally.survived()
  })

  it("retries errors the store refuses (not busy) no sooner than 1 s, doubling, and writes them once it can", async () => {
    tally.tried()
    const plugin = harness(["transform"])
    const file = plugin.runtime.databaseFile
    await transform(plugin.hooks, conversation(1))
    const db = await reader(file)
    // Not a lock: the store refuses the row itself (the errors table is gone), so the gate never closes.
    db.exec("ALTER TABLE errors RENAME TO errors_away")
    await transform(plugin.hooks, conversation(2))
    expect(plugin.errors.unsaved()).toHaveLength(1)
    expect(plugin.timers()).toEqual([1_000])
    await plugin.advance(1_000)
    expect(plugin.timers()).toEqual([2_000])
    await plugin.advance(2_000)
    expect(plugin.timers()).toEqual([4_000])
    db.exec("ALTER TABLE errors_away RENAME TO errors")
    await plugin.advance(4_000)
    expect(plugin.errors.unsaved()).toEqual([])
    expect(plugin.timers()).toEqual([])
    expect(listErrors(db).map((entry) => entry.code)).toEqual(["fault_injected", "fault_injected"])
    tally.survived()
  })
})
