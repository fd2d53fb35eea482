import type { ToolContext } from "@opencode-ai/plugin"
import { describe, expect, it } from "vitest"
import { createReduceTool } from "../../src/plugin/context-tools.js"
import type { Database } from "../../src/store/driver.js"
import type { HostMessage } from "../../src/transcript/host-message.js"
import { assistantMessage, completed, freshCopy, text, tool, userMessage } from "../helpers/host-messages.js"
import { createPluginHarness, loopTurn, pluginHarnesses, transform, type PluginHarness } from "../helpers/plugin-harness.js"
import { failTransactions } from "../helpers/fail-transactions.js"

/**
 * A pass that reduces nothing leaves a call's new raw rows to be written a turn of the event loop after the transform
 * hook returned. Whatever writes the session first writes them first; a write that fails, or a process that ends
 * before it, loses nothing the next pass cannot store again from the host's copy, to the tags it showed.
 */

const SESSION = "ses_owed_rows"
const { harness, openStore } = pluginHarnesses("owed-rows")

/** `turns` exchanges, each a question, a read and its answer: far below any threshold, so every pass is quiet. */
function session(turns: number): HostMessage[] {
  return Array.from({ length: turns }, (_, index) => [
    userMessage({ id: `msg_u${index}`, sessionID: SESSION, created: 10 + index * 10, parts: [text(`prt_u${index}`, `step ${index}: read the parser`)] }),
    assistantMessage({
      id: `msg_a${index}`,
      sessionID: SESSION,
      parentID: `msg_u${index}`,
      created: 11 + index * 10,
      parts: [text(`prt_a${index}`, `reading file ${index}`), tool(`prt_t${index}`, "read", completed({ filePath: `src/f${index}.ts` }, `export const f${index} = ${index}`))],
    }),
  ]).flat()
}

/** The stored tags as [tag, part id], in tag order. */
function storedTags(db: Database): [number, string][] {
  return db
    .prepare("SELECT tag, part_id FROM tags WHERE session_id = ? ORDER BY tag")
    .all([SESSION])
    .map((row) => [Number(row["tag"]), String(row["part_id"])])
}

/** Every text the model reads, in order (tags included). */
function shown(messages: readonly HostMessage[]): string[] {
  return messages.flatMap((message) =>
    message.parts.map((part) => (part.type === "text" ? part.text : part.type === "tool" && part.state.status === "completed" ? part.state.output : part.type)),
  )
}

async function reduce(plugin: PluginHarness, drop: string): Promise<string> {
  const context = { sessionID: SESSION, messageID: "m", agent: "build", directory: "/", worktree: "/" } as ToolContext
  const answer = await createReduceTool(plugin.runtime).execute({ drop }, context)
  return String(answer)
}

describe("a quiet pass's new raw rows", () => {
  it("are written a turn of the loop after the hook, to the tags the pass showed", async () => {
    const plugin = harness()
    await transform(plugin.hooks, freshCopy(session(1)))
    await loopTurn()
    const db = await plugin.runtime.database()
    const before = storedTags(db)
    const sent = await transform(plugin.hooks, freshCopy(session(2)))
    expect(storedTags(db)).toEqual(before)
    await loopTurn()
    const stored = storedTags(db)
    expect(stored.slice(before.length).map(([, part]) => part)).toEqual(["prt_u1", "prt_a1", "prt_t1"])
    for (const [tag] of stored.slice(before.length)) expect(shown(sent).some((line) => line.startsWith(`§${tag}§ `))).toBe(true)
    expect(plugin.errors.recent()).toEqual([])
  })

  it("are written first, in order, by the next pass when it comes before the loop's turn", async () => {
    const plugin = harness()
    await transform(plugin.hooks, freshCopy(session(1)))
    await transform(plugin.hooks, freshCopy(session(2)))
    // The first pass's rows went in before the second planned its own; the second commits the record the first owed,
    // and its own rows with it.
    const db = await plugin.runtime.database()
    expect(storedTags(db).map(([tag, part]) => `${tag}:${part}`)).toEqual(["1:prt_u0", "2:prt_a0", "3:prt_t0", "4:prt_u1", "5:prt_a1", "6:prt_t1"])
    const seqs = db.prepare("SELECT id, seq FROM messages WHERE session_id = ? ORDER BY seq").all([SESSION]).map((row) => String(row["id"]))
    expect(seqs).toEqual(["msg_u0", "msg_a0", "msg_u1", "msg_a1"])
    expect(plugin.errors.recent()).toEqual([])
  })

  it("are written before ctx_reduce queues a drop of a tag the pass showed", async () => {
    const plugin = harness()
    await transform(plugin.hooks, freshCopy(session(1)))
    const answer = await reduce(plugin, "3")
    expect(answer).not.toMatch(/error|failed/i)
    expect(storedTags(await plugin.runtime.database())).toHaveLength(3)
    expect(plugin.errors.recent()).toEqual([])
  })

  it("that fail to be written stay owed, recorded and never thrown, and the next pass writes them to the same tags", async () => {
    const plugin = harness()
    const sent = shown(await transform(plugin.hooks, freshCopy(session(1))))
    const restore = failTransactions(await plugin.runtime.database())
    await loopTurn()
    restore()
    expect(plugin.errors.recent().map((error) => [error.hook, error.message])).toEqual([["pass.settle", "store gone"]])
    expect(storedTags(await plugin.runtime.database())).toEqual([])
    const again = shown(await transform(plugin.hooks, freshCopy(session(1))))
    expect(again).toEqual(sent)
    expect(storedTags(await plugin.runtime.database()).map(([tag]) => tag)).toEqual([1, 2, 3])
  })

  it("lost with a process that ends before writing them are stored by the next process, to the tags the first showed", async () => {
    const first = harness()
    const sent = shown(await transform(first.hooks, freshCopy(session(2))))
    const file = first.runtime.databaseFile
    // The process ends before the turn of the loop: its connection goes, nothing it owed is written.
    ;(await first.runtime.database()).close()
    await loopTurn()
    const db = await openStore(file)
    expect(storedTags(db)).toEqual([])

    const next = createPluginHarness({ dbFile: file })
    try {
      const again = shown(await transform(next.hooks, freshCopy(session(2))))
      expect(again).toEqual(sent)
      await loopTurn()
      expect(storedTags(db).map(([tag, part]) => `${tag}:${part}`)).toEqual(["1:prt_u0", "2:prt_a0", "3:prt_t0", "4:prt_u1", "5:prt_a1", "6:prt_t1"])
    } finally {
      await next.dispose()
    }
  })
})
