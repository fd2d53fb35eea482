import { mkdirSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { recordFaultTally } from "../../faults/fault-table.js"
import { fixtureText } from "../harness/fixture-text.js"
import { isTitleRequest, messageText, startMockModelServer, type ChatRequest, type MockModelServer } from "../harness/mock-model-server.js"
import { createOpenCodeSandbox, type OpenCodeSandbox, type RunResult } from "../harness/opencode-harness.js"
import { keepRequests, lastUserText, mainRequests } from "../harness/prompt-inspection.js"
import { createTurnScript } from "../harness/scripted-turns.js"
import { openStoreReadOnly } from "../harness/store-reader.js"

const RUN_LOGS = ["--print-logs", "--log-level", "INFO"]
const STATUS_OPEN = "<ctx-status>"
// Usable window 64,000 - 4,096 = 59,904 tokens; a quarter is 14,976.
const CONTEXT = 64_000

/**
 * The plugin in the real OpenCode with a user config file nested 100,000 levels deep and a project file holding
 * 1e400, an invalid pin regex and a protected window larger than the whole context: the plugin stays on, the log
 * names every refused file and value, and /ctx-status says the protected window was clamped.
 */
describe("extreme config in the real OpenCode", () => {
  let mock: MockModelServer
  let sandbox: OpenCodeSandbox
  let first: RunResult
  let status: RunResult
  let userFile = ""
  let projectFile = ""

  beforeAll(async () => {
    let project = ""
    const turns = createTurnScript([
      { marker: STATUS_OPEN, steps: [(request) => ({ kind: "text", text: reportOf(request) || "NO-REPORT-FOUND" })] },
      {
        marker: "please read the file",
        steps: [
          () => ({ kind: "tool", name: "read", args: { filePath: join(project, "a.txt") } }),
          () => ({ kind: "text", text: "READ-DONE" }),
        ],
      },
    ])
    mock = await startMockModelServer((request, n) => {
      if (isTitleRequest(request)) return { kind: "text", text: "Config extremes" }
      return turns(request, n) ?? { kind: "text", text: "UNSCRIPTED-REQUEST" }
    })
    sandbox = createOpenCodeSandbox({
      mockUrl: mock.url,
      contextLimit: CONTEXT,
      files: {
        "a.txt": fixtureText("A", 2_000),
        "magic-context.jsonc": '{ "protected_tokens": 10000000, "execute_threshold": 1e400, "pins": ["/(/", "deploy"] }\n',
      },
    })
    project = sandbox.project
    projectFile = join(project, "magic-context.jsonc")
    const userDir = join(sandbox.env["XDG_CONFIG_HOME"] as string, "opencode")
    mkdirSync(userDir, { recursive: true })
    userFile = join(userDir, "magic-context.jsonc")
    writeFileSync(userFile, `{ "pins": ${"[".repeat(100_000)}${"]".repeat(100_000)} }`)
    first = await sandbox.run(["run", ...RUN_LOGS, "please", "read", "the", "file"])
    status = await sandbox.run(["run", "--continue", ...RUN_LOGS, "--command", "ctx-status"])
  })

  afterAll(async () => {
    keepRequests(sandbox.root, mock)
    await mock.close()
    sandbox.cleanup()
  })

  it("stays on, logs every refusal with its file, and /ctx-status says the protected window was clamped", () => {
    const checks: [string, () => void][] = [
      [
        "the turn completes and the plugin tags it",
        () => {
          expect(first.exitCode, first.stderr.slice(-3_000)).toBe(0)
          expect(first.stdout).toContain("READ-DONE")
          const db = openStoreReadOnly(sandbox.databaseFile)
          try {
            expect((db.prepare("SELECT COUNT(*) AS n FROM tags").get() as { n: number }).n).toBeGreaterThanOrEqual(2)
            expect(db.prepare("SELECT hook, message FROM errors").all()).toEqual([])
          } finally {
            db.close()
          }
          const read = mainRequests(mock).find((request) => lastUserText(request) === "please read the file")
          expect(read?.messages.some((message) => /^§\d+§ /.test(messageText(message)))).toBe(true)
        },
      ],
      [
        "the log names each refused file and value",
        () => {
          // OpenCode's log escapes the quotes of the message.
          const logged = first.stderr.replace(/\\"/g, '"')
          expect(logged).toContain(`${userFile}:1:74: nested more than 64 levels deep; the whole file is ignored`)
          expect(logged).toContain(`${projectFile}: key "execute_threshold" has value 1e400, which is not a finite number`)
          expect(logged).toMatch(new RegExp(`${escape(projectFile)}: key "pins\\.0" has value "/\\(/", expected a valid "/regex/flags" pattern \\(.+\\)`))
          expect(logged).toContain(
            "mock/mock-model: protected_tokens 10,000,000 is more than a quarter of the usable window (59,904 tokens); " +
              "the protected window is clamped to 14,976 tokens",
          )
        },
      ],
      [
        "/ctx-status says so",
        () => {
          expect(status.exitCode, status.stderr.slice(-3_000)).toBe(0)
          expect(status.stdout).toContain(
            "Protected window: protected_tokens 10,000,000 is more than a quarter of the usable window (59,904 tokens); " +
              "the protected window is clamped to 14,976 tokens",
          )
        },
      ],
    ]
    const survived = checks.filter(([, check]) => passes(check)).length
    recordFaultTally({ probe: "extreme config in OpenCode", tried: checks.length, survived, lost: checks.length - survived })
    for (const [, check] of checks) check()
  })
})

function passes(check: () => void): boolean {
  try {
    check()
    return true
  } catch {
    return false
  }
}

function reportOf(request: ChatRequest): string {
  const message = request.messages.find((candidate) => candidate.role === "user" && messageText(candidate).startsWith(STATUS_OPEN))
  return /^<ctx-status>\n([\s\S]*)\n<\/ctx-status>\n/.exec(message ? messageText(message) : "")?.[1] ?? ""
}

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")
}
