import { execFile } from "node:child_process"
import { writeFileSync } from "node:fs"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { isTitleRequest, startMockModelServer, type ChatRequest, type MockModelServer, type MockReply } from "./harness/mock-model-server.js"
import { createOpenCodeSandbox, REPO_ROOT, type OpenCodeSandbox } from "./harness/opencode-harness.js"
import { queryStore } from "./harness/store-reader.js"

/**
 * A session made in the real OpenCode, exported with `opencode export` and replayed: the export carries neither the
 * model's window nor the system prompt and tool definitions, so `replay` takes both from what the live session
 * recorded, and the replay and `magic-context status` of the session agree on them.
 */

const RUN_TIMEOUT_MS = 240_000
const CONTEXT = 60_000
const OUTPUT = 8_000
const NOTES = "The parser drops trailing commas in arrays.\n".repeat(40)

type CliResult = { exitCode: number | null; stdout: string; stderr: string }

/** Runs the package's CLI (`dist/cli/bin.js`) as a user would, in `cwd` with `env`. */
function runCli(args: string[], options: { cwd: string; env: Record<string, string> }): Promise<CliResult> {
  return new Promise((resolve) => {
    execFile(process.execPath, [join(REPO_ROOT, "dist", "cli", "bin.js"), ...args], { cwd: options.cwd, env: options.env, timeout: RUN_TIMEOUT_MS }, (error, stdout, stderr) => {
      resolve({ exitCode: error ? (typeof error.code === "number" ? error.code : null) : 0, stdout, stderr })
    })
  })
}

function script(project: string) {
  return (request: ChatRequest): MockReply => {
    if (isTitleRequest(request)) return { kind: "text", text: "Replay export session" }
    const last = request.messages[request.messages.length - 1]
    if (last?.role === "tool") return { kind: "text", text: "I read the notes." }
    return { kind: "tool", name: "read", args: { filePath: join(project, "notes.md") } }
  }
}

describe("replay of an `opencode export` of a live session", () => {
  let mock: MockModelServer
  let sandbox: OpenCodeSandbox
  let sessionId: string
  let exportFile: string
  let exported: string

  beforeAll(async () => {
    let project = ""
    mock = await startMockModelServer((request) => script(project)(request))
    sandbox = createOpenCodeSandbox({ mockUrl: mock.url, files: { "notes.md": NOTES }, contextLimit: CONTEXT, outputLimit: OUTPUT })
    project = sandbox.project
    const run = await sandbox.run(["run", "please", "read", "the", "notes"], { timeoutMs: RUN_TIMEOUT_MS })
    expect(run.exitCode, run.stderr).toBe(0)
    const sessions = queryStore(sandbox.databaseFile, "SELECT id FROM sessions WHERE source = 'opencode'") as { id: string }[]
    expect(sessions).toHaveLength(1)
    sessionId = sessions[0]?.id ?? ""
    exportFile = join(sandbox.root, "export.json")
    exported = JSON.stringify(sandbox.exportSession(sessionId))
    writeFileSync(exportFile, exported)
  }, RUN_TIMEOUT_MS)

  afterAll(async () => {
    await mock?.close()
    sandbox?.cleanup()
  })

  it("exports neither the model's window nor the system prompt and tool definitions", () => {
    // The keys a window or a fixed prompt would come under: OpenCode's model limits, a system prompt, tool schemas.
    expect(exported).toContain(`"modelID":"mock-model"`)
    expect(exported).not.toMatch(/"(limit|context|system|tools|parameters|inputSchema)":/)
  })

  it("runs with the usable window and the fixed prompt of the live status, and says where they came from", async () => {
    const status = await runCli(["status", "--session", sessionId, "--json"], { cwd: sandbox.project, env: sandbox.env })
    expect(status.exitCode, status.stderr).toBe(0)
    const live = JSON.parse(status.stdout) as { lastPass: { windowTokens: number; breakdown: { fixed: number } } }
    // The live window is OpenCode's: the context minus the output reserve.
    expect(live.lastPass.windowTokens).toBe(CONTEXT - OUTPUT)
    // The system prompt and the tool definitions, counted by the plugin from OpenCode's hooks.
    expect(live.lastPass.breakdown.fixed).toBeGreaterThan(1_000)

    const table = await runCli(["replay", exportFile], { cwd: sandbox.project, env: sandbox.env })
    expect(table.exitCode, table.stderr).toBe(0)
    const header = table.stdout.split("\n")[0] ?? ""
    const store = sandbox.databaseFile
    expect(header).toContain(`usable window ${(CONTEXT - OUTPUT).toLocaleString("en-US")} tokens (as the live session ran, ${store})`)
    expect(header).toContain(`fixed prompt ${live.lastPass.breakdown.fixed.toLocaleString("en-US")} tokens (as the live session ran, ${store})`)

    const json = await runCli(["replay", exportFile, "--json"], { cwd: sandbox.project, env: sandbox.env })
    const turns = json.stdout.trim().split("\n").map((line) => JSON.parse(line) as { tokens: { fixed: number } })
    expect(turns.length).toBeGreaterThan(0)
    expect(turns.every((turn) => turn.tokens.fixed === live.lastPass.breakdown.fixed)).toBe(true)
  })

  it("runs with the defaults, saying so, where the live store does not hold the session", async () => {
    const env = { ...sandbox.env, XDG_DATA_HOME: join(sandbox.root, "elsewhere") }
    const table = await runCli(["replay", exportFile], { cwd: sandbox.project, env })
    expect(table.exitCode, table.stderr).toBe(0)
    const header = table.stdout.split("\n")[0] ?? ""
    expect(header).toContain("tokens (fallback)")
    expect(header).toContain("fixed prompt 0 tokens (none recorded: --fixed-tokens sets it)")
  })
})
