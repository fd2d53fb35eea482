import { describe, expect, it } from "vitest"
import { SETTLE_SLICE_EPISODES } from "../../src/host/pass-inputs.js"
import { listCompartments } from "../../src/store/compartment-repository.js"
import type { HostMessage } from "../../src/transcript/host-message.js"
import { assistantMessage, completed, fillerWords, text, tool, userMessage } from "../helpers/host-messages.js"
import { loopTurn, pluginHarnesses, transform, type PluginHarness } from "../helpers/plugin-harness.js"

/**
 * The transform hook cuts settled conversation into compartments but stores their tiers once it has returned (a turn
 * of the event loop later, while the model answers), from the messages as the pass read them, not as the hook then
 * edited them; a runtime disposed before that stores them on its way out.
 */

const SESSION = "ses_cut"
const { harness, openStore } = pluginHarnesses("deferred-cut", { protected_tokens: 400 })

/** `turns` turns (four unless told), each a request and a reply that reads a file. */
function session(turns = 4): HostMessage[] {
  return Array.from({ length: turns }, (_, index) => [
    userMessage({ id: `msg_u${index}`, sessionID: SESSION, created: 10 + index * 10, parts: [text(`prt_u${index}`, `Update src/mod${index}.ts; keep parseItem${index} exported.`)] }),
    assistantMessage({
      id: `msg_a${index}`,
      sessionID: SESSION,
      created: 11 + index * 10,
      parts: [
        text(`prt_a${index}`, `I'll read src/mod${index}.ts first.`),
        tool(`prt_r${index}`, "read", completed({ filePath: `src/mod${index}.ts` }, fillerWords(200))),
      ],
    }),
  ]).flat()
}

/** The stored compartments, read through the runtime's open store (no turn of the event loop in between). */
async function compartments(plugin: PluginHarness) {
  return listCompartments(await plugin.runtime.database(), SESSION)
}

/** The same, from the store file once the runtime has closed it. */
async function compartmentsInFile(plugin: PluginHarness) {
  const db = await openStore(plugin.runtime.databaseFile)
  return listCompartments(db, SESSION)
}

describe("the transform hook's cut", () => {
  it("is stored a turn of the event loop after the hook returned, from the source, not the tagged messages", async () => {
    const plugin = harness()
    const messages = await transform(plugin.hooks, session())
    // The hook wrote the tags into the host's messages ...
    expect(messages.some((message) => message.parts.some((part) => part.type === "text" && part.text.startsWith("§")))).toBe(true)
    // ... and has not stored the compartments yet.
    expect(await compartments(plugin)).toEqual([])
    await loopTurn()
    const stored = await compartments(plugin)
    expect(stored.length).toBeGreaterThan(0)
    const full = stored.map((compartment) => compartment.representations.find((representation) => representation.tier === "full")?.content ?? "")
    expect(full.join("\n")).toContain("Update src/mod0.ts; keep parseItem0 exported.")
    // Each item's tag once (the record's), never the tag the hook wrote into the text as well.
    expect(full.join("\n")).not.toMatch(/§\d+§ §\d+§/)
    expect(plugin.errors.recent()).toEqual([])
  })

  it("is stored in slices, a turn of the loop each, when it holds many episodes (a long session's first call)", async () => {
    const plugin = harness()
    await transform(plugin.hooks, session(80))
    const planner = plugin.runtime.plannerOf(SESSION)
    if (!planner) throw new Error("no planner for the session")
    // The slices the hook scheduled, as they come (the first runs a turn of the loop after the call).
    const limits: (number | undefined)[] = []
    const settle = planner.settleCuts
    planner.settleCuts = (limit) => {
      limits.push(limit)
      return settle(limit)
    }
    for (let turn = 0; turn < 100 && planner.owesCuts(); turn += 1) await loopTurn()
    expect(planner.owesCuts()).toBe(false)
    expect(limits.length).toBeGreaterThan(1)
    expect(limits.every((limit) => limit === SETTLE_SLICE_EPISODES)).toBe(true)
    expect((await compartments(plugin)).length).toBeGreaterThan(SETTLE_SLICE_EPISODES)
    expect(plugin.errors.recent()).toEqual([])
  })

  it("records a store write that fails after the call, as after dispose, and never throws into the host", async () => {
    const plugin = harness()
    await transform(plugin.hooks, session())
    const planner = plugin.runtime.plannerOf(SESSION)
    if (!planner) throw new Error("no planner for the session")
    planner.settleCuts = () => {
      throw new Error("store gone")
    }
    await loopTurn()
    expect(plugin.errors.recent().map((error) => [error.hook, error.message])).toEqual([["pass.settle", "store gone"]])
    // What the pass owed is still owed (the stub wrote nothing): dispose tries again and records that too.
    await plugin.dispose()
    expect(plugin.errors.recent().map((error) => error.hook)).toEqual(["dispose", "pass.settle"])
  })

  it("is stored by the next pass when that comes first, and by dispose when nothing else came", async () => {
    const first = harness()
    await transform(first.hooks, session())
    await transform(first.hooks, session())
    // The second pass read the compartments first: the first pass's cut is stored.
    const afterNext = await compartments(first)
    expect(afterNext.length).toBeGreaterThan(0)

    const second = harness()
    await transform(second.hooks, session())
    await second.dispose()
    expect(await compartmentsInFile(second)).toEqual(afterNext)
  })
})
