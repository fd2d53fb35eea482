import { readFileSync } from "node:fs"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { REPO_ROOT } from "../e2e/harness/opencode-harness.js"
import { runCliCaptured } from "../helpers/run-cli.js"
import { createTempDirs, createTempHome } from "../helpers/temp-dirs.js"

/** The README's text, its lines joined by single spaces (a sentence may wrap). */
function readmeText(): string {
  return readFileSync(join(REPO_ROOT, "README.md"), "utf8").replace(/\s+/g, " ")
}

/** The README's main-job line: `npx magic-context <args>   # the main job`. */
function mainJobArgs(): string[] {
  const readme = readFileSync(join(REPO_ROOT, "README.md"), "utf8")
  const line = readme.split("\n").find((text) => text.includes("# the main job"))
  const command = /^npx magic-context (.+?)\s+#/.exec(line ?? "")?.[1]
  if (!command) throw new Error("README.md has no `npx magic-context … # the main job` line")
  return command.split(/\s+/)
}

describe("the README's main job", () => {
  it("runs on embedded defaults, shows the engine at work (execute passes, history, savings) and is what the README says", async () => {
    const dirs = createTempDirs()
    try {
      const home = createTempHome(dirs)
      const { code, io } = await runCliCaptured(mainJobArgs(), { env: home.env, cwd: REPO_ROOT })
      expect(code).toBe(0)
      const did = /^What the engine did: (\d+) execute passes; (\d+) settled episodes folded into history .*; (\d+) tool outputs dropped/.exec(
        io.out.find((line) => line.startsWith("What the engine did: ")) ?? "",
      )
      const saved = /mean prompt ([\d,]+) vs ([\d,]+) tokens \(−(\d+)%\)\.$/.exec(
        io.out.find((line) => line.startsWith("Against the same session unreduced: ")) ?? "",
      )
      const priced = /^Under it, estimated prompt cost [\d,]+ vs [\d,]+ without magic-context \(−(\d+)%\)\.$/.exec(
        io.out.find((line) => line.startsWith("Under it, ")) ?? "",
      )
      expect(did).not.toBeNull()
      expect(saved).not.toBeNull()
      expect(priced).not.toBeNull()
      const [, executes, episodes, outputs] = did ?? []
      const [, mean, unreduced, tokens] = saved ?? []
      const [, cost] = priced ?? []
      // The README says what the command prints.
      expect(readmeText()).toContain(
        `${executes} execute passes fold ${episodes} episodes into history and drop ${outputs} old tool outputs, and the mean ` +
          `prompt is ${mean} tokens against ${unreduced} unreduced (−${tokens}%; estimated prompt cost −${cost}%)`,
      )
    } finally {
      dirs.cleanup()
    }
  }, 60_000)
})
