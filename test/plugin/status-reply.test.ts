import { mkdirSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { afterEach, describe, expect, it } from "vitest"
import {
  serverStatusCommandWanted,
  STATUS_MARKER,
  statusReplyText,
  statusReportOf,
  statusRequestPart,
} from "../../src/plugin/status-command.js"
import { OWN_TUI_ENTRY } from "../../src/install/opencode-install.js"
import { text, userMessage } from "../helpers/host-messages.js"
import { createTempDirs, createTempHome } from "../helpers/temp-dirs.js"

const dirs = createTempDirs()
afterEach(() => dirs.cleanup())

describe("statusReportOf", () => {
  it("is the report between the request's markers, without the instruction to the model", () => {
    const request = `${STATUS_MARKER}\nmagic-context status: session ses_1\n\nUsage: 1 of 2\n</ctx-status>\nShow the report above.`
    const message = userMessage({ id: "u1", parts: [text("t1", request)] })
    expect(statusReportOf(message)).toBe("magic-context status: session ses_1\n\nUsage: 1 of 2")
    expect(statusReportOf(userMessage({ id: "u2", parts: [text("t2", "hello")] }))).toBe("")
  })

  it("marks the request synthetic (no user bubble) and shows the report as a code block (no reflow)", () => {
    expect(statusRequestPart("x")).toEqual({ type: "text", text: "x", synthetic: true })
    expect(statusReplyText("line one\n  line two")).toBe("```\nline one\n  line two\n```")
  })
})

describe("serverStatusCommandWanted", () => {
  function project(tui: unknown | null): { directory: string; env: Record<string, string> } {
    const home = createTempHome(dirs)
    const directory = dirs.make("project")
    mkdirSync(directory, { recursive: true })
    if (tui !== null) writeFileSync(join(directory, "tui.json"), JSON.stringify(tui))
    return { directory, env: home.env }
  }

  it("drops the command only in the TUI's server when the TUI config loads magic-context's TUI plugin", () => {
    const withPanel = project({ plugin: [OWN_TUI_ENTRY] })
    expect(serverStatusCommandWanted({ ...withPanel, inTuiWorker: true })).toBe(false)
    // `opencode run` and `opencode serve` run the server on the main thread: their clients have no dialog.
    expect(serverStatusCommandWanted({ ...withPanel, inTuiWorker: false })).toBe(true)
  })

  it("keeps the command in a TUI without the plugin, and when tui.json cannot be read", () => {
    expect(serverStatusCommandWanted({ ...project(null), inTuiWorker: true })).toBe(true)
    expect(serverStatusCommandWanted({ ...project({ plugin: ["some-other-panel"] }), inTuiWorker: true })).toBe(true)
    const broken = project(null)
    writeFileSync(join(broken.directory, "tui.json"), "{ plugin: [")
    expect(serverStatusCommandWanted({ ...broken, inTuiWorker: true })).toBe(true)
    expect(serverStatusCommandWanted({ directory: null, env: {}, inTuiWorker: true })).toBe(true)
  })
})
