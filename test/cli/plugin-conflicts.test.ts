import { mkdirSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { pathToFileURL } from "node:url"
import { afterEach, describe, expect, it } from "vitest"
import { pluginConflicts } from "../../src/cli/plugin-conflicts.js"
import { createTempDirs } from "../helpers/temp-dirs.js"

const dirs = createTempDirs()
afterEach(() => dirs.cleanup())

describe("pluginConflicts", () => {
  it.each([
    ["@tarquinen/opencode-dcp", "Dynamic Context Pruning (DCP)"],
    ["@tarquinen/opencode-dcp@3.1.14", "Dynamic Context Pruning (DCP)"],
    ["@cortexkit/opencode-magic-context@latest", "CortexKit's Magic Context"],
  ])("names %s as a second context plugin, with the fix", (entry, what) => {
    expect(pluginConflicts([{ file: "/p/opencode.json", entry }])).toEqual([
      {
        file: "/p/opencode.json",
        entry,
        problem: `${what} is loaded too: two context plugins rewrite the same prompt before every model call`,
        fix: `remove ${JSON.stringify(entry)} from "plugin" in /p/opencode.json (or remove magic-context)`,
      },
    ])
  })

  it("says nothing of unrelated plugins or of a magic-context entry whose build exists", () => {
    const checkout = dirs.make("checkout")
    mkdirSync(join(checkout, "magic-context", "dist"), { recursive: true })
    const index = join(checkout, "magic-context", "dist", "index.js")
    writeFileSync(index, "export default {}")
    expect(
      pluginConflicts([
        { file: "/p/opencode.json", entry: "opencode-wakatime" },
        { file: "/p/opencode.json", entry: "magic-context" },
        { file: "/p/opencode.json", entry: pathToFileURL(index).href },
        { file: join(checkout, "opencode.json"), entry: "./magic-context/dist/index.js" },
      ]),
    ).toEqual([])
  })

  it("finds a magic-context entry that points at a missing build (file: URL or a path relative to its config)", () => {
    const project = dirs.make("project")
    const config = join(project, "opencode.json")
    const conflicts = pluginConflicts([
      { file: config, entry: "file:///nowhere/magic-context/dist/index.js" },
      { file: config, entry: "../magic-context/dist/index.js" },
    ])
    expect(conflicts.map((conflict) => conflict.problem)).toEqual([
      "the magic-context entry points at /nowhere/magic-context/dist/index.js, which does not exist",
      `the magic-context entry points at ${join(project, "..", "magic-context", "dist", "index.js")}, which does not exist`,
    ])
    expect(conflicts[0]?.fix).toBe(`build the checkout (npm ci) or fix the path in ${config}; \`npx magic-context setup\` writes a working entry`)
  })
})
