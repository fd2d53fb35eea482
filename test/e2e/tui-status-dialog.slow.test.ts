import { writeFileSync } from "node:fs"
import { join } from "node:path"
import { pathToFileURL } from "node:url"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { createPanelSource } from "../../src/tui/panel-source.js"
import { statusDialogLines } from "../../src/tui/status-dialog-lines.js"
import { isTitleRequest, messageText, startMockModelServer, type MockModelServer } from "./harness/mock-model-server.js"
import { createOpenCodeSandbox, OPENCODE_BIN, REPO_ROOT, type OpenCodeSandbox } from "./harness/opencode-harness.js"
import { keepRequests } from "./harness/prompt-inspection.js"
import { queryStore } from "./harness/store-reader.js"
import { startInTmux, tmuxMissing, type TmuxScreen } from "./harness/tmux-screen.js"

const missing = tmuxMissing()
// Said once where the suite's output shows it, never a silent skip.
if (missing) console.warn(`tui-status-dialog.slow.test.ts skipped: ${missing}`)

const WIDTH = 200
const HEIGHT = 50
/** OpenCode's widest dialog (116 columns, from a terminal of 128) less the dialog's padding and scrollbar. */
const DIALOG_TEXT_COLUMNS = 110
const START_TIMEOUT_MS = 60_000
const TURN_TIMEOUT_MS = 120_000
const DIALOG_TIMEOUT_MS = 20_000
/** What the mock answers every request of the session: the user must never see it as the report. */
const MODEL_TEXT = "MODEL-REPLY-TEXT"
/** The only text of the report that moves with the clock. */
const AGO = /\d+s ago|\d+ min ago|\d+\.\d h ago|just now/g

function withoutClock(text: string): string {
  return text.replace(AGO, "…")
}

/** The TUI config that loads magic-context's TUI plugin from this build, as `magic-context setup` writes it. */
function addTuiPlugin(sandbox: OpenCodeSandbox): void {
  writeFileSync(join(sandbox.project, "tui.json"), JSON.stringify({ plugin: [pathToFileURL(join(REPO_ROOT, "dist", "tui.js")).href] }))
}

describe.skipIf(missing !== null)("/ctx-status in the real OpenCode TUI with the TUI plugin: a dialog, no model call", () => {
  let mock: MockModelServer
  let sandbox: OpenCodeSandbox
  let screen: TmuxScreen
  let slashList = ""
  let dialog = ""
  let scrolled = ""
  let closed = ""
  const requests = { beforeCommand: 0, afterDialog: 0, afterClose: 0 }

  beforeAll(async () => {
    mock = await startMockModelServer((request) => (isTitleRequest(request) ? { kind: "text", text: "Dialog session" } : { kind: "text", text: "TURN-DONE" }))
    sandbox = createOpenCodeSandbox({ mockUrl: mock.url })
    addTuiPlugin(sandbox)
    screen = startInTmux({ command: OPENCODE_BIN, cwd: sandbox.project, env: { ...sandbox.env, TERM: "xterm-256color" }, width: WIDTH, height: HEIGHT, scratch: sandbox.root })
    try {
      await screen.waitFor((text) => text.includes("Ask anything"), START_TIMEOUT_MS, "the TUI's prompt")
      screen.type("hello there")
      screen.press("Enter")
      await screen.waitFor((text) => text.includes("TURN-DONE"), TURN_TIMEOUT_MS, "the turn's reply")
      // The title request may still be on its way after the reply shows; the count settles before the command.
      await screen.waitFor(() => mock.requests.some((request) => isTitleRequest(request.body)), TURN_TIMEOUT_MS, "the title request")
      await new Promise((resolve) => setTimeout(resolve, 1_000))
      requests.beforeCommand = mock.requests.length
      screen.type("/ctx-status")
      slashList = await screen.waitFor((text) => text.includes("(no model call)"), DIALOG_TIMEOUT_MS, "the slash list's entry")
      screen.press("Enter")
      dialog = await screen.waitFor((text) => text.includes("esc close"), DIALOG_TIMEOUT_MS, "the dialog's key line")
      requests.afterDialog = mock.requests.length
      for (let i = 0; i < 5; i++) screen.press("Down")
      scrolled = await screen.waitFor((text) => !text.includes("Usage: "), DIALOG_TIMEOUT_MS, "the report scrolled past its usage line")
      screen.press("Escape")
      closed = await screen.waitFor((text) => !text.includes("esc close"), DIALOG_TIMEOUT_MS, "the dialog closed")
      await new Promise((resolve) => setTimeout(resolve, 2_000))
      requests.afterClose = mock.requests.length
    } catch (error) {
      await screen.close()
      throw error
    }
  }, START_TIMEOUT_MS + 2 * TURN_TIMEOUT_MS + 4 * DIALOG_TIMEOUT_MS)

  afterAll(async () => {
    if (dialog) writeFileSync(join(sandbox.root, "dialog-screen.txt"), dialog)
    await screen?.close()
    if (sandbox && mock) keepRequests(sandbox.root, mock)
    await mock?.close()
    sandbox?.cleanup()
  })

  it("lists /ctx-status once in the slash list: the TUI's command, the server's left out", () => {
    // Rows of the list: the name, then its description on the same row (the prompt's own "/ctx-status" has none).
    expect(slashList.split("\n").filter((row) => /\/ctx-status {2,}\S/.test(row))).toHaveLength(1)
    expect(slashList).toContain("where this session's context goes (no model call)")
  })

  it("opens the dialog with no request reaching the model, then or after it closes", () => {
    expect(requests.beforeCommand).toBeGreaterThan(0)
    expect(requests.afterDialog).toBe(requests.beforeCommand)
    expect(requests.afterClose).toBe(requests.beforeCommand)
    for (const request of mock.requests) expect(request.body.messages.map(messageText).join("\n")).not.toContain("<ctx-status>")
  })

  it("shows the report's lines as magic-context's status code makes them from the same store", async () => {
    const [session] = queryStore<{ id: string }>(sandbox.databaseFile, "SELECT id FROM sessions")
    expect(session).toBeDefined()
    const source = createPanelSource({ directory: sandbox.project, env: sandbox.env })
    try {
      const input = await source.read((session as { id: string }).id)
      expect(input.kind).toBe("status")
      const { title, lines } = statusDialogLines(input, { now: Date.now(), width: DIALOG_TEXT_COLUMNS })
      const screenText = withoutClock(dialog)
      expect(title.startsWith(`magic-context status: session ${(session as { id: string }).id}`), title).toBe(true)
      expect(screenText).toContain(title)
      // The lines the dialog shows before any scrolling: every one on the screen, in order.
      const shown = lines.slice(0, 12).filter((line) => line.trim() !== "")
      expect(shown.some((line) => line.startsWith("Usage: "))).toBe(true)
      let from = 0
      for (const line of shown) {
        const at = screenText.indexOf(withoutClock(line), from)
        expect(at, `"${line}" on the screen after column ${from}:\n${dialog}`).toBeGreaterThan(-1)
        from = at
      }
    } finally {
      source.close()
    }
  })

  it("scrolls with the arrow keys and closes with Esc, the conversation unchanged under it", () => {
    expect(scrolled).toContain("esc close")
    expect(scrolled).toContain("Recent internal errors: none")
    expect(closed).not.toContain("magic-context status: session")
    expect(closed).toContain("TURN-DONE")
    expect(closed).not.toContain(MODEL_TEXT)
  })
})

describe("/ctx-status without the TUI plugin (`opencode run --command`): the server command, a clean reply", () => {
  let mock: MockModelServer
  let sandbox: OpenCodeSandbox
  let status = { exitCode: null as number | null, stdout: "", stderr: "" }
  let before = 0

  beforeAll(async () => {
    mock = await startMockModelServer((request) => (isTitleRequest(request) ? { kind: "text", text: "Headless" } : { kind: "text", text: MODEL_TEXT }))
    sandbox = createOpenCodeSandbox({ mockUrl: mock.url })
    // The TUI plugin is listed, as after `magic-context setup`; `opencode run` has no TUI, so the command is there.
    addTuiPlugin(sandbox)
    const first = await sandbox.run(["run", "hello"], { timeoutMs: TURN_TIMEOUT_MS })
    expect(first.exitCode, first.stderr.slice(-2000)).toBe(0)
    before = mock.requests.length
    status = await sandbox.run(["run", "--continue", "--command", "ctx-status"], { timeoutMs: TURN_TIMEOUT_MS })
  }, 3 * TURN_TIMEOUT_MS)

  afterAll(async () => {
    if (sandbox && mock) keepRequests(sandbox.root, mock)
    await mock?.close()
    sandbox?.cleanup()
  })

  it("prints the report itself, without the request's markup, the instruction or what the model wrote", () => {
    expect(status.exitCode, status.stderr.slice(-2000)).toBe(0)
    // The server command still makes one model call: a server-side command has no way to skip it.
    expect(mock.requests.length - before).toBe(1)
    const [session] = queryStore<{ id: string }>(sandbox.databaseFile, "SELECT id FROM sessions")
    expect(status.stdout).toContain(`magic-context status: session ${(session as { id: string }).id}`)
    expect(status.stdout).toMatch(/Usage: [\d,]+ of [\d,]+ usable tokens/)
    expect(status.stdout).toContain("Recent internal errors: none")
    expect(status.stdout).not.toContain("<ctx-status>")
    expect(status.stdout).not.toContain("</ctx-status>")
    expect(status.stdout).not.toContain("Show the report above")
    expect(status.stdout).not.toContain(MODEL_TEXT)
  })

  it("keeps the request's part synthetic in the session (OpenCode's views show no user bubble for it)", () => {
    const [session] = queryStore<{ id: string }>(sandbox.databaseFile, "SELECT id FROM sessions")
    const exported = sandbox.exportSession((session as { id: string }).id) as { messages: { info: { role: string }; parts: { type: string; text?: string; synthetic?: boolean }[] }[] }
    const requestParts = exported.messages.flatMap((message) => message.parts.filter((part) => part.type === "text" && (part.text ?? "").startsWith("<ctx-status>")))
    expect(requestParts).toHaveLength(1)
    expect(requestParts[0]?.synthetic).toBe(true)
  })
})
