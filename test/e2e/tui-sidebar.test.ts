import { spawnSync } from "node:child_process"
import { cpSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { pathToFileURL } from "node:url"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { shortTokens, sidebarPanel, panelText } from "../../src/status/sidebar-panel.js"
import { createPanelSource } from "../../src/tui/panel-source.js"
import { fixtureText } from "./harness/fixture-text.js"
import { isTitleRequest, messageText, startMockModelServer, type MockModelServer } from "./harness/mock-model-server.js"
import { createOpenCodeSandbox, OPENCODE_BIN, REPO_ROOT, type OpenCodeSandbox } from "./harness/opencode-harness.js"
import { keepRequests, lastUserText, prefixTag, toolMessages } from "./harness/prompt-inspection.js"
import { queryStore } from "./harness/store-reader.js"
import { startInTmux, tmuxMissing, type TmuxScreen } from "./harness/tmux-screen.js"

const missing = tmuxMissing()
// Said once where the suite's output shows it, never a silent skip.
if (missing) console.warn(`tui-sidebar.test.ts skipped: ${missing}`)

/** Wide enough that OpenCode shows its sidebar beside the session (it hides it in narrow terminals). */
const WIDTH = 200
const HEIGHT = 60
/** Generous: the machine is shared; each wait fails with the screen it last saw. */
const START_TIMEOUT_MS = 60_000
const TURN_TIMEOUT_MS = 120_000
const PANEL_TIMEOUT_MS = 30_000
/** The only text of the panel that moves with the clock. */
const AGO = /\d+s ago|\d+ min ago|just now/g

/**
 * The sidebar panel's rows on a captured screen: from the row whose text ends with the panel's title, each row's
 * text from a little left of the title's column on, trimmed, up to the first blank row. Trimmed because a row of
 * the capture can be shifted by a few columns: the chat column beside the sidebar prints characters (`▣`) whose
 * width tmux and OpenCode count differently.
 */
function panelRows(screen: string): string[] {
  const rows = screen.split("\n")
  const titleRow = rows.findIndex((row) => /magic-context\s*$/.test(row))
  if (titleRow < 0) return []
  const column = Math.max(0, (rows[titleRow] ?? "").lastIndexOf("magic-context") - 8)
  const panel: string[] = []
  for (const row of rows.slice(titleRow)) {
    const text = row.slice(column).trim()
    if (text === "") break
    panel.push(text)
  }
  return panel
}

/**
 * Starts the real OpenCode TUI in the sandbox's project and runs one turn: types `prompt`, waits for `lastReply`.
 */
async function startTuiTurn(sandbox: OpenCodeSandbox, turn: { prompt: string; lastReply: string }): Promise<TmuxScreen> {
  const screen = startInTmux({
    command: OPENCODE_BIN,
    cwd: sandbox.project,
    env: { ...sandbox.env, TERM: "xterm-256color" },
    width: WIDTH,
    height: HEIGHT,
    scratch: sandbox.root,
  })
  try {
    await screen.waitFor((text) => text.includes("Ask anything"), START_TIMEOUT_MS, "the TUI's prompt")
    screen.type(turn.prompt)
    screen.press("Enter")
    await screen.waitFor((text) => text.includes(turn.lastReply), TURN_TIMEOUT_MS, `the turn's last reply ${turn.lastReply}`)
    return screen
  } catch (error) {
    // The tmux server outlives the test process: a failed start must not leave it (and OpenCode) running.
    await screen.close()
    throw error
  }
}

/** The panel's lines as the capture compares them: trimmed (see panelRows), the clock's text replaced. */
function withoutClock(lines: readonly string[]): string {
  return lines.map((line) => line.trim()).join("\n").replace(AGO, "…")
}

describe.skipIf(missing !== null)("the sidebar panel in the real OpenCode TUI, set up by `magic-context setup`", () => {
  // Usable window 64,000 - 4,096 = 59,904 tokens; threshold 50%. The reported usage jumps over it after the
  // ctx_reduce call, so the pass before the last reply executes the queued drop.
  const CONTEXT = 64_000
  const LOW = 20_000
  const HIGH = 36_000
  const files = {
    "magic-context.jsonc": '{ "execute_threshold": 50, "protected_tokens": 300, "historian": { "strategy": "off" } }\n',
    "a.txt": fixtureText("A", 3_000),
    "b.txt": fixtureText("B", 3_000),
  }
  let mock: MockModelServer
  let sandbox: OpenCodeSandbox
  let screen: TmuxScreen
  let finalScreen = ""

  beforeAll(async () => {
    let project = ""
    mock = await startMockModelServer((request) => {
      if (isTitleRequest(request)) return { kind: "text", text: "Panel session" }
      if (!lastUserText(request).includes("read the files")) return { kind: "text", text: "UNEXPECTED" }
      const results = toolMessages(request)
      switch (results.length) {
        case 0:
          return { kind: "tool", name: "read", args: { filePath: join(project, "a.txt") }, promptTokens: LOW }
        case 1: {
          const readA = results.find((message) => messageText(message).includes("FILE-A-BEGIN"))
          return { kind: "tool", name: "ctx_reduce", args: { drop: String(prefixTag(readA ? messageText(readA) : "")) }, promptTokens: LOW }
        }
        case 2:
          return { kind: "tool", name: "read", args: { filePath: join(project, "b.txt") }, promptTokens: HIGH }
        default:
          return { kind: "text", text: "PANEL-DONE", promptTokens: HIGH }
      }
    })
    sandbox = createOpenCodeSandbox({ mockUrl: mock.url, contextLimit: CONTEXT, files })
    project = sandbox.project
    // As a new user would: `magic-context setup` writes the TUI plugin's entry (the server's is already there).
    const setup = spawnSync(process.execPath, [join(REPO_ROOT, "dist", "cli", "bin.js"), "setup"], { cwd: project, env: sandbox.env, encoding: "utf8" })
    expect(setup.status, setup.stderr).toBe(0)
    expect(JSON.parse(readFileSync(join(project, "tui.json"), "utf8"))).toEqual({ plugin: [pathToFileURL(join(REPO_ROOT, "dist", "tui.js")).href] })
    screen = await startTuiTurn(sandbox, { prompt: "please read the files", lastReply: "PANEL-DONE" })
  }, START_TIMEOUT_MS + TURN_TIMEOUT_MS + 30_000)

  afterAll(async () => {
    if (finalScreen) writeFileSync(join(sandbox.root, "screen.txt"), finalScreen)
    await screen?.close()
    keepRequests(sandbox.root, mock)
    await mock.close()
    sandbox.cleanup()
  })

  it("shows what the store holds after the pass: the panel's own lines, refreshed without a keypress", async () => {
    const [session] = queryStore<{ id: string }>(sandbox.databaseFile, "SELECT id FROM sessions")
    expect(session).toBeDefined()
    const source = createPanelSource({ directory: sandbox.project, env: sandbox.env })
    let expected: string[] = []
    try {
      // Polls until the screen shows what the panel should show now, by the same code over the same store.
      const deadline = Date.now() + PANEL_TIMEOUT_MS
      let rows: string[] = []
      while (Date.now() < deadline) {
        const input = await source.read((session as { id: string }).id)
        expected = panelText(sidebarPanel(input, { now: Date.now() })).split("\n")
        finalScreen = screen.capture()
        rows = panelRows(finalScreen)
        if (withoutClock(rows) === withoutClock(expected)) break
        await new Promise((resolve) => setTimeout(resolve, 500))
      }
      expect(withoutClock(rows), finalScreen).toBe(withoutClock(expected))
    } finally {
      source.close()
    }
  })

  it("shows the right numbers: the last pass's usage and window, the executed drop, nothing queued", () => {
    const rows = panelRows(finalScreen)
    const [pass] = queryStore<{ usage_tokens: number; window_tokens: number; band: string }>(
      sandbox.databaseFile,
      "SELECT usage_tokens, window_tokens, band FROM passes WHERE trigger != 'compaction' ORDER BY seq DESC LIMIT 1",
    )
    const executes = queryStore<{ seq: number; usage_tokens: number; rendered_tokens: number }>(
      sandbox.databaseFile,
      "SELECT seq, usage_tokens, rendered_tokens FROM passes WHERE decision = 'execute' ORDER BY seq",
    )
    expect(pass).toBeDefined()
    expect(executes).toHaveLength(1)
    const execute = executes[0] as { seq: number; usage_tokens: number; rendered_tokens: number }
    const { usage_tokens: usage, window_tokens: window } = pass as { usage_tokens: number; window_tokens: number }
    expect(window).toBe(CONTEXT - 4_096)
    expect(rows[0]).toBe("magic-context")
    expect(rows[1]).toBe(`${shortTokens(usage)} / ${shortTokens(window)} tokens (${Math.round((usage / window) * 100)}%)`)
    expect(rows[2]).toMatch(/^\[F+[A-Z.|]*\]$/)
    expect(rows).toContain(`band ${pass?.band} · execute at 50%`)
    expect(rows).toContain("Queued drops: none")
    expect(rows.find((row) => row.startsWith("Last execute"))).toMatch(new RegExp(`^Last execute #${execute.seq}, (\\d+s ago|just now)$`))
    expect(rows).toContain(`${shortTokens(execute.usage_tokens)} → ${shortTokens(execute.rendered_tokens)} tokens, 1 drop`)
    expect(rows).toContain("Historian (off): 0 of 0 folded")
    // The session's estimated cost against OpenCode alone, under the list in force: the mock's provider is not in the
    // price table, so the most conservative one.
    expect(rows.find((row) => row.startsWith("Cost "))).toMatch(/^Cost ~[\d.]+k? vs ~[\d.]+k? alone \([+-]?\d+%\)$/)
    expect(rows).toContain("anthropic-1h (unknown provider)")
    expect(rows.find((row) => row.startsWith("execute ~"))).toMatch(/^execute ~[\d.]+k?, saves ~[\d.]+k?\/call$/)
    expect(rows.some((row) => row.startsWith("!"))).toBe(false)
  })
})

describe.skipIf(missing !== null)("the sidebar panel loaded from an installed package (node_modules/magic-context)", () => {
  let mock: MockModelServer
  let sandbox: OpenCodeSandbox
  let screen: TmuxScreen
  let installed = ""

  beforeAll(async () => {
    mock = await startMockModelServer((request) =>
      isTitleRequest(request) ? { kind: "text", text: "Installed panel" } : { kind: "text", text: "INSTALLED-DONE" },
    )
    sandbox = createOpenCodeSandbox({ mockUrl: mock.url })
    // The package as npm lays it out: its package.json and dist/ under node_modules (its own dependencies beside it).
    installed = join(sandbox.root, "install", "node_modules", "magic-context")
    mkdirSync(installed, { recursive: true })
    cpSync(join(REPO_ROOT, "dist"), join(installed, "dist"), { recursive: true })
    cpSync(join(REPO_ROOT, "package.json"), join(installed, "package.json"))
    symlinkSync(join(REPO_ROOT, "node_modules"), join(installed, "node_modules"))
    // OpenCode finds the TUI plugin of a package folder through its `./tui` export.
    writeFileSync(join(sandbox.project, "tui.json"), JSON.stringify({ plugin: [pathToFileURL(installed).href] }))
    screen = await startTuiTurn(sandbox, { prompt: "hello", lastReply: "INSTALLED-DONE" })
  }, START_TIMEOUT_MS + TURN_TIMEOUT_MS + 30_000)

  afterAll(async () => {
    await screen?.close()
    await mock.close()
    sandbox.cleanup()
  })

  it("shows the panel with the pass's usage: OpenCode resolved ./tui and its Solid and OpenTUI inside node_modules", async () => {
    const [pass] = queryStore<{ usage_tokens: number; window_tokens: number }>(
      sandbox.databaseFile,
      "SELECT usage_tokens, window_tokens FROM passes WHERE trigger != 'compaction' ORDER BY seq DESC LIMIT 1",
    )
    expect(pass).toBeDefined()
    const { usage_tokens: usage, window_tokens: window } = pass as { usage_tokens: number; window_tokens: number }
    const usageLine = `${shortTokens(usage)} / ${shortTokens(window)} tokens (${Math.round((usage / window) * 100)}%)`
    const shown = await screen.waitFor((text) => panelRows(text)[1] === usageLine, PANEL_TIMEOUT_MS, `the panel's usage line "${usageLine}"`)
    expect(panelRows(shown)).toContain("Last execute: none yet")
  })
})
