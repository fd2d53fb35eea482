import { execFile } from "node:child_process"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { isTitleRequest, messageText, startMockModelServer, type ChatRequest, type MockModelServer, type MockReply } from "./harness/mock-model-server.js"
import { createOpenCodeSandbox, REPO_ROOT, type OpenCodeSandbox, type RunResult } from "./harness/opencode-harness.js"
import { queryStore } from "./harness/store-reader.js"

/**
 * An internal error with no session (one at `dispose`, injected) belongs to the process that had it: the store keeps
 * it with that process's instance and project directory, `magic-context status` of the project lists it, and the
 * `/ctx-status` of the next OpenCode process in the same project does not.
 */

const RUN_TIMEOUT_MS = 240_000
const INJECTED = "injected fault at dispose (MAGIC_CONTEXT_FAULT)"

type CliResult = { exitCode: number | null; stdout: string; stderr: string }

/** Runs the package's CLI (`dist/cli/bin.js`) as a user would, in `cwd` with `env`. */
function runCli(args: string[], options: { cwd: string; env: Record<string, string> }): Promise<CliResult> {
  return new Promise((resolve) => {
    execFile(process.execPath, [join(REPO_ROOT, "dist", "cli", "bin.js"), ...args], { cwd: options.cwd, env: options.env, timeout: RUN_TIMEOUT_MS }, (error, stdout, stderr) => {
      resolve({ exitCode: error ? (typeof error.code === "number" ? error.code : null) : 0, stdout, stderr })
    })
  })
}

function script(request: ChatRequest): MockReply {
  if (isTitleRequest(request)) return { kind: "text", text: "Sessionless errors" }
  const last = request.messages[request.messages.length - 1]
  // The status command's report, when it reaches the model, is echoed as a model told to show it would.
  if (last && messageText(last).includes("<ctx-status>")) return { kind: "text", text: messageText(last) }
  return { kind: "text", text: "FIRST-DONE" }
}

describe("an internal error without a session", () => {
  let mock: MockModelServer
  let sandbox: OpenCodeSandbox
  let first: RunResult
  let status: RunResult
  let statusRequests: string

  beforeAll(async () => {
    mock = await startMockModelServer((request) => script(request))
    sandbox = createOpenCodeSandbox({ mockUrl: mock.url })
    first = await sandbox.run(["run", "hello"], { env: { MAGIC_CONTEXT_FAULT: "dispose" }, timeoutMs: RUN_TIMEOUT_MS })
    const before = mock.requests.length
    status = await sandbox.run(["run", "--continue", "--command", "ctx-status"], { timeoutMs: RUN_TIMEOUT_MS })
    statusRequests = mock.requests
      .slice(before)
      .map((request) => JSON.stringify(request.body))
      .join("\n")
  }, 3 * RUN_TIMEOUT_MS)

  afterAll(async () => {
    await mock?.close()
    sandbox?.cleanup()
  })

  it("is stored with the process's instance and the project directory", () => {
    expect(first.exitCode, first.stderr.slice(-3000)).toBe(0)
    expect(first.stdout).toContain("FIRST-DONE")
    const errors = queryStore<{ session_id: string | null; hook: string; message: string; instance_id: string | null; directory: string | null }>(
      sandbox.databaseFile,
      "SELECT session_id, hook, message, instance_id, directory FROM errors",
    )
    expect(errors).toEqual([{ session_id: null, hook: "dispose", message: INJECTED, instance_id: expect.stringMatching(/^\d+:[0-9a-f-]{36}$/), directory: sandbox.project }])
  })

  it("is listed by magic-context status of the project", async () => {
    const cli = await runCli(["status"], { cwd: sandbox.project, env: sandbox.env })
    expect(cli.exitCode, cli.stderr).toBe(0)
    expect(cli.stdout).toContain(`dispose: ${INJECTED}`)
  })

  it("is not in the /ctx-status of the next OpenCode process in the project", () => {
    expect(status.exitCode, status.stderr.slice(-3000)).toBe(0)
    // The report, wherever this OpenCode shows it (the model's request or the output), lists no error of another process.
    const report = `${statusRequests}\n${status.stdout}`
    expect(report).toContain("Recent internal errors")
    expect(report).not.toContain("injected fault at dispose")
  })
})
