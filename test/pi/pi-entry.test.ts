import { afterEach, describe, expect, it, vi } from "vitest"
import magicContext from "../../src/pi.js"
import { createTempDirs, createTempHome } from "../helpers/temp-dirs.js"

const dirs = createTempDirs()

type Handler = (event: unknown, ctx: unknown) => unknown

/** Pi's extension API as far as the entry uses it, recording every handler and command each load registers. */
function fakePi() {
  const handlers: { event: string; handler: Handler }[] = []
  const commands: string[] = []
  const api = {
    on: (event: string, handler: Handler) => void handlers.push({ event, handler }),
    registerTool: () => undefined,
    registerCommand: (name: string) => void commands.push(name),
    sendMessage: () => undefined,
    getActiveTools: () => [],
    getAllTools: () => [],
  }
  const shutdown = async (): Promise<void> => {
    for (const { event, handler } of handlers) if (event === "session_shutdown") await handler({ type: "session_shutdown" }, {})
  }
  return { api, handlers, commands, shutdown }
}

describe("the Pi entry", () => {
  afterEach(() => {
    vi.restoreAllMocks()
    vi.unstubAllEnvs()
    dirs.cleanup()
  })

  it("registers nothing and says which API is missing on a Pi without it", () => {
    const stderr = vi.spyOn(process.stderr, "write").mockImplementation(() => true)
    const on = vi.fn()
    magicContext({ on, registerTool: vi.fn() } as never)
    expect(on).not.toHaveBeenCalled()
    expect(stderr).toHaveBeenCalledWith(
      "magic-context disabled: this Pi's extension API lacks registerCommand, sendMessage, getActiveTools, getAllTools; magic-context needs Pi 0.73 or later.\n",
    )
  })

  it("says why, and never throws into Pi, when setting up fails", () => {
    const stderr = vi.spyOn(process.stderr, "write").mockImplementation(() => true)
    const api = { on: vi.fn(), registerTool: vi.fn(() => { throw new Error("no tools here") }), registerCommand: vi.fn(), sendMessage: vi.fn(), getActiveTools: vi.fn(), getAllTools: vi.fn() }
    expect(() => magicContext(api as never)).not.toThrow()
    expect(stderr).toHaveBeenCalledWith("magic-context disabled: setup failed: no tools here\n")
  })

  it("a second copy in the same Pi registers nothing and says why; once the first shuts down, a new load runs", async () => {
    const stderr = vi.spyOn(process.stderr, "write").mockImplementation(() => true)
    const home = createTempHome(dirs)
    for (const [key, value] of Object.entries(home.env)) vi.stubEnv(key, value)
    vi.spyOn(process, "cwd").mockReturnValue(dirs.make("pi-project"))
    const first = fakePi()
    magicContext(first.api as never)
    expect(first.commands).toEqual(["ctx-status"])
    const second = fakePi()
    magicContext(second.api as never)
    expect(second.handlers).toEqual([])
    expect(second.commands).toEqual([])
    expect(stderr).toHaveBeenCalledWith(expect.stringMatching(/^magic-context: magic-context is loaded more than once for .*: .*pi\.ts runs, this copy \(.*pi\.ts\) stays inert\n$/))
    await first.shutdown()
    const reloaded = fakePi()
    magicContext(reloaded.api as never)
    expect(reloaded.commands).toEqual(["ctx-status"])
    await reloaded.shutdown()
  })
})
