import { cpSync, mkdirSync, symlinkSync } from "node:fs"
import { join } from "node:path"
import { pathToFileURL } from "node:url"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { messageText, startMockModelServer, type MockModelServer } from "./harness/mock-model-server.js"
import { REPO_ROOT, type RunResult } from "./harness/opencode-harness.js"
import { createPiSandbox, PI_HOSTS, type PiSandbox } from "./harness/pi-harness.js"
import { systemTexts } from "./harness/prompt-inspection.js"
import { queryStore } from "./harness/store-reader.js"

/**
 * Two copies of the extension in one Pi process (the working tree's build and a copy of it at another path, both
 * given with `-e`): Pi loads both, the first runs and the second stays inert, so the model gets each tag and the
 * guidance once and the store one record per pass; the running copy's /ctx-status names the inert one.
 */
for (const host of PI_HOSTS) {
  describe(`magic-context loaded twice in the real pi binary (${host.label})`, () => {
    let mock: MockModelServer
    let sandbox: PiSandbox
    let copy: string
    let run: RunResult
    let status: RunResult

    beforeAll(async () => {
      mock = await startMockModelServer(() => ({ kind: "text", text: "TWICE-DONE" }))
      sandbox = createPiSandbox({ mockUrl: mock.url, host })
      const copyRoot = join(sandbox.root, "copy", "magic-context")
      mkdirSync(copyRoot, { recursive: true })
      cpSync(join(REPO_ROOT, "dist"), join(copyRoot, "dist"), { recursive: true })
      cpSync(join(REPO_ROOT, "package.json"), join(copyRoot, "package.json"))
      symlinkSync(join(REPO_ROOT, "node_modules"), join(copyRoot, "node_modules"))
      copy = join(copyRoot, "dist", "pi.js")
      run = await sandbox.run("Hello twice.", { extraExtensions: [copy] })
      status = await sandbox.run("/ctx-status", { extraExtensions: [copy], continueSession: true })
    })

    afterAll(async () => {
      await mock?.close()
      sandbox?.cleanup()
    })

    it("Pi loads both copies: the second says it stays inert", () => {
      expect(run.exitCode, run.stderr.slice(-3000)).toBe(0)
      expect(run.stdout).toContain("TWICE-DONE")
      expect(run.stderr).toContain(`magic-context: magic-context is loaded more than once for ${sandbox.project}: `)
      expect(run.stderr).toContain(`this copy (${pathToFileURL(copy).href}) stays inert`)
    })

    it("the model gets the tag, the tools and the guidance once", () => {
      expect(mock.requests).toHaveLength(1)
      const request = mock.requests[0]!.body
      expect(request.messages.filter((message) => message.role === "user").map(messageText)).toEqual(["§1§ Hello twice."])
      const tools = (request.tools ?? []).map((tool) => tool.function.name)
      expect(tools.filter((name) => name === "ctx_reduce")).toHaveLength(1)
      expect(systemTexts(request).join("\n").split("<context-management>").length - 1).toBe(1)
    })

    it("the store has one record per pass and no error", () => {
      expect(queryStore(sandbox.databaseFile, "SELECT seq FROM passes")).toEqual([{ seq: 1 }])
      expect(queryStore(sandbox.databaseFile, "SELECT message FROM errors")).toEqual([])
    })

    it("/ctx-status (once, without a model call) names the inert copy and the fix", () => {
      expect(status.exitCode, status.stderr.slice(-3000)).toBe(0)
      expect(mock.requests).toHaveLength(1)
      // Both streams, as the Pi suite's /ctx-status test reads them.
      const report = status.stdout + status.stderr
      expect(report.split("magic-context status: session").length - 1).toBe(1)
      expect(report).toContain(
        `magic-context is loaded more than once: ${pathToFileURL(copy).href} stays inert, ${pathToFileURL(join(REPO_ROOT, "dist", "pi.js")).href} runs; ` +
          "remove one of the plugin entries (`magic-context doctor` lists them)",
      )
    })
  })
}
