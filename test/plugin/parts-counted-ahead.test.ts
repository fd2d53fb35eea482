import type { Event } from "@opencode-ai/sdk"
import { describe, expect, it } from "vitest"
import { createTokenCounterPool } from "../../src/tokens/tiktoken-counter.js"
import type { HostMessage, HostPart } from "../../src/transcript/host-message.js"
import { partText } from "../../src/transcript/part-content.js"
import {
  assistantMessage,
  completed,
  freshCopy,
  running,
  TEST_MODEL,
  text,
  tool,
  userMessage,
} from "../helpers/host-messages.js"
import { pluginHarnesses, transform, type PluginHarness } from "../helpers/plugin-harness.js"

const { harness, openStore } = pluginHarnesses("counted-ahead")

const OUTPUT = [
  "src/store/migrate.ts:41: error TS2345: Argument of type 'string' is not assignable to parameter of type 'number'.",
  "src/store/migrate.ts:57: error TS2322: Type 'undefined' is not assignable to type 'Database'.",
  "Found 2 errors in the same file, starting at: src/store/migrate.ts:41",
].join("\n")

const first = userMessage({ id: "msg_1", parts: [text("prt_1", "the type check fails after the driver change, can you look?")] })
const reply = assistantMessage({
  id: "msg_2",
  parts: [
    text("prt_2a", "Running the type check first to see what the compiler says."),
    tool("prt_2b", "bash", completed({ command: "npx tsc --noEmit" }, OUTPUT)),
  ],
})
const next = userMessage({ id: "msg_3", created: 3, parts: [text("prt_3", "both errors are in migrate.ts, fix them")] })

/** The events OpenCode sends for `parts` while a step runs, each part a copy of its own as the host's events carry. */
async function partsUpdated(plugin: PluginHarness, parts: readonly HostPart[]): Promise<void> {
  for (const part of structuredClone(parts)) {
    await plugin.hooks.event?.({ event: { type: "message.part.updated", properties: { part } } as unknown as Event })
  }
}

async function storedTokens(plugin: PluginHarness): Promise<Map<string, [number, number]>> {
  const db = await openStore(plugin.runtime.databaseFile)
  const rows = db.prepare("SELECT id, tokens, call_tokens FROM parts ORDER BY id").all([])
  return new Map(rows.map((row) => [String(row["id"]), [Number(row["tokens"]), Number(row["call_tokens"])]]))
}

describe("parts counted when the host reports them finished", () => {
  it("give the next pass their counts, the same numbers as counting them in the pass", async () => {
    const plugin = harness()
    await transform(plugin.hooks, freshCopy([first]))
    await partsUpdated(plugin, [...reply.parts, ...next.parts])
    const counter = plugin.runtime.counterFor(TEST_MODEL)
    const before = counter.answeredAhead
    await transform(plugin.hooks, freshCopy([first, reply, next]))
    // The reply's text, the tool's output and its call, the user's text: none counted while the request waited.
    expect(counter.answeredAhead - before).toBe(4)
    expect(plugin.errors.recent()).toEqual([])

    const pool = createTokenCounterPool()
    const exact = pool.counterFor(counter.encoding as "o200k_base")
    const tokens = await storedTokens(plugin)
    for (const part of [...reply.parts, ...next.parts]) {
      const texts = partText(part)
      expect(tokens.get(part.id)).toEqual([exact.count(texts.content), exact.count(texts.call)])
    }
    pool.dispose()
  })

  it("leave a text still streaming and a tool still running to the pass", async () => {
    const plugin = harness()
    await transform(plugin.hooks, freshCopy([first]))
    const streaming: HostPart = { ...(reply.parts[0] as HostPart & { type: "text" }), time: { start: 5 } }
    const runningTool = tool("prt_2b", "bash", running({ command: "npx tsc --noEmit" }))({ sessionID: first.info.sessionID, messageID: "msg_2" })
    await partsUpdated(plugin, [streaming, runningTool as HostPart])
    const counter = plugin.runtime.counterFor(TEST_MODEL)
    const before = counter.answeredAhead
    const finished: HostMessage = { ...reply, parts: [{ ...streaming, time: { start: 5, end: 9 } }, reply.parts[1] as HostPart] }
    await transform(plugin.hooks, freshCopy([first, finished]))
    expect(counter.answeredAhead - before).toBe(0)
  })

  it("never throw into the host on an event without its part: the error is recorded, the next pass counts as ever", async () => {
    const plugin = harness()
    await transform(plugin.hooks, freshCopy([first]))
    await expect(plugin.hooks.event?.({ event: { type: "message.part.updated", properties: {} } as unknown as Event })).resolves.toBeUndefined()
    expect(plugin.errors.recent().length).toBe(1)
    await transform(plugin.hooks, freshCopy([first, reply]))
    expect((await storedTokens(plugin)).has("prt_2b")).toBe(true)
  })

  it("are not counted for a session no pass ran for in this process", async () => {
    const plugin = harness()
    await partsUpdated(plugin, reply.parts)
    const counter = plugin.runtime.counterFor(TEST_MODEL)
    await transform(plugin.hooks, freshCopy([first, reply]))
    expect(counter.answeredAhead).toBe(0)
  })
})
