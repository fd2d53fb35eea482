import { readFileSync } from "node:fs"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { REPO_ROOT } from "../e2e/harness/opencode-harness.js"
import { runCliCaptured } from "../helpers/run-cli.js"
import { createTempDirs, createTempHome } from "../helpers/temp-dirs.js"

/** The README's main-job line: `npx magic-context <args>   # the main job`. */
function mainJobArgs(): string[] {
  const readme = readFileSync(join(REPO_ROOT, "README.md"), "utf8")
  const line = readme.split("\n").find((text) => text.includes("# the main job"))
  const command = /^npx magic-context (.+?)\s+#/.exec(line ?? "")?.[1]
  if (!command) throw new Error("README.md has no `npx magic-context … # the main job` line")
  return command.split(/\s+/)
}

describe("the README's main job", () => {
  it("runs on embedded defaults and shows the engine at work (execute passes, history, savings)", async () => {
    const dirs = createTempDirs()
    try {
      const home = createTempHome(dirs)
      const { code, io } = await runCliCaptured(mainJobArgs(), { env: home.env, cwd: REPO_ROOT })
      expect(code).toBe(0)
      expect(io.out.find((line) => line.startsWith("What the engine did: "))).toMatch(/^What the engine did: \d+ execute passes; \d+ settled episodes folded/)
      expect(io.out.find((line) => line.startsWith("Against the same session unreduced: "))).toMatch(/tokens \(−\d+%\)/)
    } finally {
      dirs.cleanup()
    }
  }, 60_000)
})
