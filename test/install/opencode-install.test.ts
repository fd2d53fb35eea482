import { mkdirSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { afterEach, beforeEach, describe, expect, it } from "vitest"
import { inspectOpenCodeInstall, isMagicContextEntry } from "../../src/install/opencode-install.js"
import { createTempDirs, createTempHome, type TempHome } from "../helpers/temp-dirs.js"

describe("isMagicContextEntry", () => {
  it.each([
    ["magic-context", true],
    ["magic-context@0.1.0", true],
    ["magic-context@latest", true],
    ["file:///home/me/magic-context/dist/index.js", true],
    ["./plugins/magic-context/index.js", true],
    ["/opt/magic-context/dist/index.js", true],
    ["opencode-magic-context", false],
    ["@someone/magic-context-fork", false],
    ["magic-contextual", false],
    ["other-plugin", false],
  ])("classifies %s as %s", (entry, expected) => {
    expect(isMagicContextEntry(entry)).toBe(expected)
  })
})

describe("inspectOpenCodeInstall", () => {
  const dirs = createTempDirs()
  let home: TempHome
  let project: string

  beforeEach(() => {
    home = createTempHome(dirs)
    project = dirs.make("project")
  })

  afterEach(() => {
    dirs.cleanup()
  })

  function write(file: string, text: string): string {
    mkdirSync(join(file, ".."), { recursive: true })
    writeFileSync(file, text)
    return file
  }

  it("reports OpenCode's defaults when there is no config", () => {
    expect(inspectOpenCodeInstall({ directory: project, env: home.env })).toEqual({
      configFiles: [],
      unreadable: [],
      pluginReferences: [],
      pluginEntries: [],
      tuiEntries: [],
      compaction: { auto: true, prune: false, autoSource: "OpenCode default", pruneSource: "OpenCode default" },
      model: null,
    })
  })

  it("reads the model the config sets last, with its provider's package where a config names one", () => {
    write(join(home.configHome, "opencode", "opencode.json"), JSON.stringify({ model: "anthropic/claude-opus-5-5" }))
    const file = write(
      join(project, "opencode.json"),
      JSON.stringify({ model: "work/team/claude-fable-5-1", provider: { work: { npm: "@ai-sdk/anthropic" } } }),
    )
    expect(inspectOpenCodeInstall({ directory: project, env: home.env }).model).toEqual({
      providerID: "work",
      modelID: "team/claude-fable-5-1",
      source: file,
      npm: "@ai-sdk/anthropic",
    })
  })

  it("merges global, OPENCODE_CONFIG, project and inline config in that order", () => {
    const global = write(
      join(home.configHome, "opencode", "opencode.json"),
      '{ "compaction": { "auto": false, "prune": true } }',
    )
    const custom = write(join(dirs.make("custom"), "custom.json"), '{ "plugin": ["magic-context", ["@tarquinen/opencode-dcp", {}]] }')
    const local = write(join(project, "opencode.jsonc"), '{ "compaction": { "prune": false }, } // trailing comma')
    const install = inspectOpenCodeInstall({
      directory: project,
      env: { ...home.env, OPENCODE_CONFIG: custom, OPENCODE_CONFIG_CONTENT: '{ "compaction": { "auto": true } }' },
    })
    expect(install.configFiles).toEqual([global, custom, local, "OPENCODE_CONFIG_CONTENT"])
    expect(install.pluginReferences).toEqual([{ file: custom, entry: "magic-context" }])
    // Every entry, a [name, options] pair by its name: what the conflict check reads.
    expect(install.pluginEntries).toEqual([
      { file: custom, entry: "magic-context" },
      { file: custom, entry: "@tarquinen/opencode-dcp" },
    ])
    expect(install.compaction).toEqual({
      auto: true,
      prune: false,
      autoSource: "OPENCODE_CONFIG_CONTENT",
      pruneSource: local,
    })
  })

  it("lets OPENCODE_DISABLE_PRUNE turn prune off", () => {
    write(join(project, "opencode.json"), '{ "compaction": { "prune": true } }')
    const install = inspectOpenCodeInstall({ directory: project, env: { ...home.env, OPENCODE_DISABLE_PRUNE: "1" } })
    expect(install.compaction).toMatchObject({ prune: false, pruneSource: "OPENCODE_DISABLE_PRUNE" })
  })

  it("finds a local plugin file that loads magic-context", () => {
    const plugin = write(
      join(project, ".opencode", "plugin", "context.ts"),
      'export { default } from "magic-context"\n',
    )
    write(join(project, ".opencode", "plugin", "other.ts"), "export default {}\n")
    write(join(project, ".opencode", "plugin", "notes.md"), "magic-context\n")
    expect(inspectOpenCodeInstall({ directory: project, env: home.env }).pluginReferences).toEqual([
      { file: plugin, entry: "local plugin file" },
    ])
  })

  it.each([
    ["invalid JSONC", "{ nope", /opencode\.json:1:3: not valid JSONC \(\w+\)$/],
    ["a top-level array", "[]", /opencode\.json: expected a JSON object, found a list$/],
  ])("lists a config holding %s as unreadable", (_label, text, problem) => {
    const file = write(join(project, "opencode.json"), text)
    const install = inspectOpenCodeInstall({ directory: project, env: home.env })
    expect(install.configFiles).toEqual([])
    expect(install.unreadable).toEqual([{ file, problem: expect.stringMatching(problem) }])
  })
})
