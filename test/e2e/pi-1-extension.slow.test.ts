import { existsSync } from "node:fs"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { messageText, startMockModelServer, type MockModelServer } from "./harness/mock-model-server.js"
import { REPO_ROOT, type RunResult } from "./harness/opencode-harness.js"
import { describePiExtension } from "./harness/pi-extension-suite.js"
import { createPiSandbox, PI_1, type PiSandbox } from "./harness/pi-harness.js"

// Pi 1.x needs Node >= 22.19: the Node 22 of test/hosts/pi-1 runs it, where the root's better-sqlite3 (built for the
// tests' Node) does not load and the store opens with node:sqlite. Pi 0.73 runs the same assertions in
// pi-extension.test.ts.
if (!existsSync(PI_1.bin) || !existsSync(PI_1.node)) {
  throw new Error(`Pi 1.x is not installed (${PI_1.bin}, ${PI_1.node}): run node scripts/install-test-hosts.mjs`)
}
describePiExtension(PI_1)

describe("magic-context in Pi 1.6 where no SQLite driver loads", () => {
  // node:sqlite switched off (--no-experimental-sqlite) in a Node where the root's better-sqlite3 does not load.
  const env = { NODE_OPTIONS: "--no-experimental-sqlite" }
  let mock: MockModelServer
  let sandbox: PiSandbox
  let run: RunResult
  let status: RunResult

  beforeAll(async () => {
    mock = await startMockModelServer(() => ({ kind: "text", text: "NO-DRIVER-DONE" }))
    sandbox = createPiSandbox({ mockUrl: mock.url, host: PI_1 })
    run = await sandbox.run("Hello without a store.", { env })
    status = await sandbox.run("/ctx-status", { env, continueSession: true })
  })

  afterAll(async () => {
    await mock?.close()
    sandbox?.cleanup()
  })

  it("fails open: the turn completes on Pi's own messages, untagged, and no store is written", () => {
    expect(run.exitCode, run.stderr.slice(-3000)).toBe(0)
    expect(run.stdout).toContain("NO-DRIVER-DONE")
    expect(mock.requests).toHaveLength(1)
    expect(messageText(mock.requests[0]!.body.messages.find((message) => message.role === "user")!)).toBe("Hello without a store.")
    expect(existsSync(sandbox.databaseFile)).toBe(false)
  })

  it("says in /ctx-status that no driver loads and gives the command that rebuilds better-sqlite3 for Pi's Node", () => {
    expect(status.exitCode, status.stderr.slice(-3000)).toBe(0)
    expect(mock.requests).toHaveLength(1)
    const report = status.stdout + status.stderr
    expect(report).toContain(`Store: unusable since`)
    expect(report).toContain(`${sandbox.databaseFile}: cannot open the store: no SQLite driver loads in Node 22.`)
    expect(report).toContain(`Fix: rebuild it for Node 22.`)
    expect(report).toContain(`cd ${JSON.stringify(REPO_ROOT.replace(/\/$/, ""))} && PATH="`)
    expect(report).toContain(`npm rebuild better-sqlite3`)
  })
})
