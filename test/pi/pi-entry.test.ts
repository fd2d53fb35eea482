import { afterEach, describe, expect, it, vi } from "vitest"
import magicContext from "../../src/pi.js"

describe("the Pi entry", () => {
  afterEach(() => {
    vi.restoreAllMocks()
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
})
