import { execFileSync } from "node:child_process"
import { cpSync, mkdirSync, symlinkSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { isTitleRequest, messageText, startMockModelServer, type ChatRequest, type MockModelServer } from "./harness/mock-model-server.js"
import { createOpenCodeSandbox, REPO_ROOT, type OpenCodeSandbox, type RunResult } from "./harness/opencode-harness.js"
import { openStoreReadOnly } from "./harness/store-reader.js"

/**
 * magic-context listed twice for one project, as a user ends up with after `opencode plugin <checkout>` and another
 * entry: the working tree's build from opencode.json and a copy of it from .opencode/opencode.json. Doctor's verdict
 * and what the real OpenCode does must agree: OpenCode loads both copies, and the second stays inert.
 */
describe("magic-context listed twice in the real OpenCode", () => {
  let mock: MockModelServer
  let sandbox: OpenCodeSandbox
  let run: RunResult
  let doctor: { checks: { name: string; status: string; detail: string[] }[] }

  beforeAll(async () => {
    mock = await startMockModelServer((request) => (isTitleRequest(request) ? { kind: "text", text: "Title" } : { kind: "text", text: "answered DONE" }))
    sandbox = createOpenCodeSandbox({ mockUrl: mock.url })
    const copy = join(sandbox.root, "copy", "magic-context")
    mkdirSync(copy, { recursive: true })
    cpSync(join(REPO_ROOT, "dist"), join(copy, "dist"), { recursive: true })
    cpSync(join(REPO_ROOT, "package.json"), join(copy, "package.json"))
    symlinkSync(join(REPO_ROOT, "node_modules"), join(copy, "node_modules"))
    writeFileSync(join(sandbox.project, ".opencode", "opencode.json"), JSON.stringify({ plugin: [`${copy}/`] }))
    let out = ""
    try {
      out = execFileSync(process.execPath, [join(REPO_ROOT, "dist", "cli", "bin.js"), "doctor", "--json", "--directory", sandbox.project], { env: sandbox.env, encoding: "utf8" })
    } catch (error) {
      out = String((error as { stdout?: string }).stdout ?? "")
    }
    doctor = JSON.parse(out) as typeof doctor
    run = await sandbox.run(["run", "--print-logs", "--log-level", "INFO", "hello"], { timeoutMs: 240_000 })
  }, 300_000)

  afterAll(async () => {
    await mock.close()
    sandbox.cleanup()
  })

  it("doctor fails the plugin check: magic-context is loaded twice", () => {
    const conflicts = doctor.checks.find((check) => check.name === "plugin conflicts")
    expect(conflicts?.status).toBe("fail")
    expect(conflicts?.detail[0]).toMatch(/magic-context's plugin is loaded 2 times/)
  })

  it("OpenCode does load both: the second copy says it stays inert", () => {
    expect(run.exitCode, run.stderr.slice(-3000)).toBe(0)
    expect(run.stderr).toMatch(/magic-context is loaded more than once for .*stays inert/)
  })

  it("the model gets each tag once and one guidance block", () => {
    const requests = mock.requests.map((request) => request.body).filter((body) => !isTitleRequest(body)) as ChatRequest[]
    expect(requests.length).toBe(1)
    const request = requests[0] as ChatRequest
    expect(request.messages.filter((message) => message.role === "user").map(messageText)).toEqual(["§1§ hello"])
    const system = request.messages.filter((message) => message.role === "system").map(messageText).join("\n")
    expect(system.split("<context-management>").length - 1).toBe(1)
  })

  it("the store has one record per pass and no error", () => {
    const db = openStoreReadOnly(sandbox.databaseFile)
    const passes = db.prepare("SELECT session_id, seq FROM passes").all() as { session_id: string; seq: number }[]
    const errors = db.prepare("SELECT message FROM errors").all() as { message: string }[]
    db.close()
    expect(passes.length).toBe(1)
    expect(errors).toEqual([])
  })
})
