import { join } from "node:path"
import { afterEach, describe, expect, it, vi } from "vitest"
import { holdStoreLock } from "../helpers/store-lock.js"
import { createTempDirs } from "../helpers/temp-dirs.js"
import { createFakeHost, type ChatLine, type FakeHost } from "./fake-host.js"

const dirs = createTempDirs()
const hosts: FakeHost[] = []

afterEach(() => {
  for (const host of hosts.splice(0)) host.dispose()
  vi.useRealTimers()
  dirs.cleanup()
})

/** A fake host over a fresh store file, on a clock that stands still unless the test moves it. */
function fakeHost(options: { busyTimeoutMs?: number } = {}): { host: FakeHost; dbFile: string } {
  vi.useFakeTimers({ toFake: ["Date"] })
  vi.setSystemTime(1_000_000)
  const dbFile = join(dirs.make("fake-host"), "store.db")
  const host = createFakeHost({ dbFile, window: 32_000, ...options })
  hosts.push(host)
  return { host, dbFile }
}

const SESSION = "fake-session"
/** About 3,200 tokens of tool output. */
const LOG = Array.from({ length: 400 }, (_, index) => `line ${index}: build step ok`).join("\n")
const person = (id: string, words: string, at: number): ChatLine => ({ id, speaker: "person", words, at })
const agent = (id: string, words: string, at: number, ran?: ChatLine["ran"]): ChatLine => ({ id, speaker: "agent", words, at, ...(ran ? { ran } : {}) })
/** A turn of the event loop: what the pass left for after it (a quiet pass's record) is stored by then. */
const loopTurn = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, 5))

const opening = [person("m1", "Fix the parser", 1), agent("m2", "Running the build", 2, { tool: "bash", output: LOG }), person("m3", "Go on", 3)]
const later = [
  ...opening,
  agent("m4", "Again", 4, { tool: "bash", output: LOG }),
  person("m5", "More", 5),
  agent("m6", "Once more", 6, { tool: "bash", output: LOG }),
  person("m7", "Well?", 7),
]

describe("createHostPass, called by a host that only translates its messages and wires its events", () => {
  it("tags the host's lines, written back in the host's own shape", async () => {
    const { host } = fakeHost()
    const sent = await host.beforeModelCall(SESSION, opening)
    expect(sent.map((line) => line.words)).toEqual(["§1§ Fix the parser", "§2§ Running the build", "§4§ Go on"])
    expect(sent[1]?.ran?.output).toBe(`§3§ ${LOG}`)
    expect(host.lastResult()?.decision).toBe("replay")
    // Only translation: the host's own lines are left as they were.
    expect(opening[0]?.words).toBe("Fix the parser")
  })

  it("lands a queued drop at the next execute pass and keeps it on the replays after", async () => {
    const { host } = fakeHost()
    await host.beforeModelCall(SESSION, opening)
    await loopTurn()
    expect(await host.reduce(SESSION, "3")).toMatch(/^Deferred 1 drop \(§3§, .*still in the protected recent window/)
    const landed = await host.beforeModelCall(SESSION, later)
    expect(host.lastResult()).toMatchObject({ decision: "execute", dropped: [3] })
    expect(landed[1]?.ran?.output).toBe("[dropped §3§ bash output]")
    expect(landed.map((line) => line.words)).toEqual(["§1§ Fix the parser", "§2§ Running the build", "§4§ Go on", "§5§ Again", "§7§ More", "§8§ Once more", "§10§ Well?"])
    await loopTurn()
    const next = await host.beforeModelCall(SESSION, [...later, agent("m8", "Done", 8), person("m9", "And?", 9)])
    expect(host.lastResult()).toMatchObject({ decision: "replay", dropped: [] })
    expect(next[1]?.ran?.output).toBe("[dropped §3§ bash output]")
    expect(next.slice(-2).map((line) => line.words)).toEqual(["§11§ Done", "§12§ And?"])
    expect(host.runtime.errors.recent()).toEqual([])
  })

  it("fails open on a store error: the host's lines go out unchanged, the error is recorded, the rows wait", async () => {
    const { host, dbFile } = fakeHost({ busyTimeoutMs: 10 })
    await host.beforeModelCall(SESSION, opening)
    await loopTurn()
    const lock = holdStoreLock(dbFile)
    const tags = ["§1§ Fix the parser", "§2§ Running the build", "§4§ Go on", "§5§ Again", "§7§ More", "§8§ Once more", "§10§ Well?"]
    // A pass that reduces nothing owes its new rows; written a turn later, they meet the lock.
    const owing = await host.beforeModelCall(SESSION, later)
    expect(owing.map((line) => line.words)).toEqual(tags)
    await loopTurn()
    const sent = await host.beforeModelCall(SESSION, later).finally(() => lock.release())
    expect(sent).toEqual(later)
    expect(host.runtime.errors.recent().map((error) => error.hook)).toEqual(["fake.before-model-call", "fake.pass.settle"])
    expect(host.runtime.storeFailure()?.kind).toBe("busy")
    expect(host.waiting()).toBe(1)
    // The store is free again: the waiting rows go first, then the pass tags as before.
    const recovered = await host.beforeModelCall(SESSION, later)
    // The same tags the pass before the failure showed: the rows it owed were stored again from the host's copy.
    expect(recovered.map((line) => line.words)).toEqual(tags)
    expect(host.runtime.storeFailure()).toBeNull()
    expect(host.waiting()).toBe(0)
  })
})
