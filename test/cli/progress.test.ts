import { describe, expect, it } from "vitest"
import type { TerminalStatus } from "../../src/cli/cli-io.js"
import { createProgress, progressLine } from "../../src/cli/progress.js"
import { fakeCliIo } from "../helpers/fake-cli-io.js"

describe("progressLine", () => {
  it("shows the bar, the count, the time left from the pace so far and the last step", () => {
    expect(progressLine({ title: "lab", done: 3, total: 12, elapsedMs: 30_000, label: "a.json default @ 32000", columns: 120 })).toBe(
      "lab [######------------------] 3/12 · 1:30 left · a.json default @ 32000",
    )
  })

  it("gives no estimate before the first step or after the last, and caps the bar at full", () => {
    expect(progressLine({ title: "lab", done: 0, total: 4, elapsedMs: 0, label: "", columns: 80 })).toBe("lab [------------------------] 0/4 · ")
    expect(progressLine({ title: "lab", done: 5, total: 4, elapsedMs: 9_000, label: "x", columns: 80 })).toBe("lab [########################] 5/4 · x")
  })

  it("cuts the line to the terminal's width", () => {
    const line = progressLine({ title: "lab", done: 1, total: 2, elapsedMs: 1_000, label: "x".repeat(200), columns: 60 })
    expect(line).toHaveLength(59)
    expect(line.endsWith("…")).toBe(true)
  })
})

describe("createProgress", () => {
  const terminal = () => {
    const shown: string[] = []
    const status: TerminalStatus & { shown: string[]; cleared: number } = {
      columns: 100,
      shown,
      cleared: 0,
      show: (line) => shown.push(line),
      clear: () => {
        status.cleared += 1
      },
    }
    return status
  }

  it("rewrites the status line per step and clears it at the end, on a terminal", () => {
    const status = terminal()
    const io = { ...fakeCliIo({ args: [], env: {}, cwd: "/" }), terminal: status }
    let now = 0
    const progress = createProgress(io, { title: "lab", total: 2, quiet: false, now: () => now })
    now = 2_000
    progress.step("one")
    now = 4_000
    progress.step("two")
    progress.finish()
    expect(status.shown).toEqual(["lab [############------------] 1/2 · 0:02 left · one", "lab [########################] 2/2 · two"])
    expect(status.cleared).toBe(1)
    expect(io.err).toEqual([])
  })

  it("is silent when stderr is not a terminal, and with --json on one", () => {
    const plain = fakeCliIo({ args: [], env: {}, cwd: "/" })
    createProgress(plain, { title: "lab", total: 1, quiet: false }).step("x")
    expect(plain.err).toEqual([])
    const status = terminal()
    const json = createProgress({ ...plain, terminal: status }, { title: "lab", total: 1, quiet: true })
    json.step("x")
    json.finish()
    expect(status.shown).toEqual([])
    expect(status.cleared).toBe(0)
  })
})
