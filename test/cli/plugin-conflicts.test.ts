import { mkdirSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { pathToFileURL } from "node:url"
import { afterEach, describe, expect, it } from "vitest"
import { pluginConflicts } from "../../src/cli/plugin-conflicts.js"
import { createTempDirs } from "../helpers/temp-dirs.js"

const dirs = createTempDirs()
afterEach(() => dirs.cleanup())

/** A copy of the package on disk: package.json named magic-context with its exports, and (unless not built) dist/. */
function fakePackage(root: string, built = true): string {
  mkdirSync(root, { recursive: true })
  const manifest = { name: "magic-context", main: "./dist/index.js", exports: { ".": { default: "./dist/index.js" }, "./tui": { default: "./dist/tui.js" } } }
  writeFileSync(join(root, "package.json"), JSON.stringify(manifest))
  if (built) {
    mkdirSync(join(root, "dist"), { recursive: true })
    writeFileSync(join(root, "dist", "index.js"), "export default async () => ({})")
    writeFileSync(join(root, "dist", "tui.js"), "export default {}")
  }
  return root
}

describe("pluginConflicts", () => {
  it.each([
    ["@tarquinen/opencode-dcp", "Dynamic Context Pruning (DCP)"],
    ["@tarquinen/opencode-dcp@3.1.14", "Dynamic Context Pruning (DCP)"],
    ["@cortexkit/opencode-magic-context@latest", "CortexKit's Magic Context"],
  ])("names %s as a second context plugin, with the fix", (entry, what) => {
    expect(pluginConflicts({ cacheDir: dirs.make("cache"), entries: [{ file: "/p/opencode.json", entry }] })).toEqual([
      {
        file: "/p/opencode.json",
        entry,
        problem: `${what} is loaded too: two context plugins rewrite the same prompt before every model call`,
        fix: `remove ${JSON.stringify(entry)} from "plugin" in /p/opencode.json (or remove magic-context)`,
      },
    ])
  })

  it("says nothing of unrelated plugins or of one entry with a build (a file, or a checkout's folder of any name)", () => {
    const checkout = fakePackage(join(dirs.make("checkout"), "main"))
    const cacheDir = dirs.make("cache")
    const config = join(dirs.make("project"), "opencode.json")
    expect(pluginConflicts({ cacheDir, entries: [{ file: config, entry: "opencode-wakatime" }, { file: config, entry: pathToFileURL(join(checkout, "dist", "index.js")).href }] })).toEqual([])
    expect(pluginConflicts({ cacheDir, entries: [{ file: config, entry: `${checkout}/` }], tuiEntries: [{ file: config, entry: `${checkout}/` }] })).toEqual([])
  })

  it("fails the package name OpenCode cannot install or resolve, and passes it once it is in the plugin cache or node_modules", () => {
    const cacheDir = dirs.make("cache")
    const project = dirs.make("project")
    const config = join(project, "opencode.json")
    const [conflict] = pluginConflicts({ cacheDir, entries: [{ file: config, entry: "magic-context" }] })
    expect(conflict?.problem).toBe(
      `the package "magic-context" is neither in OpenCode's plugin cache (${join(cacheDir, "packages")}) nor installed where the config is; ` +
        "it is not published on npm yet, so OpenCode starts without it",
    )
    expect(conflict?.fix).toContain("run `magic-context setup` from there")
    fakePackage(join(cacheDir, "packages", "magic-context@latest", "node_modules", "magic-context"))
    expect(pluginConflicts({ cacheDir, entries: [{ file: config, entry: "magic-context" }] })).toEqual([])
    fakePackage(join(project, "node_modules", "magic-context"))
    expect(pluginConflicts({ cacheDir: dirs.make("empty-cache"), entries: [{ file: config, entry: "magic-context@0.1.0" }] })).toEqual([])
  })

  it("fails a path that is not there and a checkout without a build, naming the missing file and the fix", () => {
    const project = dirs.make("project")
    const config = join(project, "opencode.json")
    const unbuilt = fakePackage(join(dirs.make("checkout"), "magic-context"), false)
    const conflicts = pluginConflicts({
      cacheDir: dirs.make("cache"),
      entries: [
        { file: config, entry: "file:///nowhere/magic-context/dist/index.js" },
        { file: config, entry: "../magic-context/dist/index.js" },
      ],
      tuiEntries: [{ file: config, entry: unbuilt }],
    })
    expect(conflicts.map((conflict) => conflict.problem)).toEqual([
      "the entry points at /nowhere/magic-context/dist/index.js, which does not exist",
      `the entry points at ${join(project, "..", "magic-context", "dist", "index.js")}, which does not exist`,
      `the entry points at ${unbuilt}, which has no build (${join(unbuilt, "dist", "tui.js")} is missing)`,
    ])
    expect(conflicts[2]?.fix).toBe(`build it: cd ${unbuilt} && npm ci (or npm run build)`)
  })

  it("fails magic-context loaded twice (a checkout's folder and its dist/index.js; two copies), server and panel alike", () => {
    const checkout = fakePackage(join(dirs.make("checkout"), "main"))
    const copy = fakePackage(join(dirs.make("copy"), "magic-context"))
    const project = dirs.make("project")
    const root = join(project, "opencode.json")
    const dotOpencode = join(project, ".opencode", "opencode.json")
    const conflicts = pluginConflicts({
      cacheDir: dirs.make("cache"),
      entries: [
        { file: root, entry: pathToFileURL(join(checkout, "dist", "index.js")).href },
        { file: dotOpencode, entry: `${checkout}/` },
      ],
      tuiEntries: [
        { file: join(project, "tui.json"), entry: pathToFileURL(join(copy, "dist", "tui.js")).href },
        { file: join(project, ".opencode", "tui.json"), entry: `${checkout}/` },
      ],
    })
    expect(conflicts.map((conflict) => [conflict.file, conflict.entry])).toEqual([
      [dotOpencode, `${checkout}/`],
      [join(project, ".opencode", "tui.json"), `${checkout}/`],
    ])
    expect(conflicts[0]?.problem).toMatch(/^magic-context's plugin is loaded 2 times \(.*\): OpenCode loads each of these entries$/)
    expect(conflicts[0]?.fix).toBe(`keep one: remove ${JSON.stringify(`${checkout}/`)} from "plugin" in ${dotOpencode} (${JSON.stringify(pathToFileURL(join(checkout, "dist", "index.js")).href)} in ${root} stays)`)
    expect(conflicts[1]?.problem).toMatch(/^magic-context's sidebar panel \(TUI plugin\) is loaded 2 times/)
  })

  it("takes entries OpenCode merges as one: the same entry in two files, a file:// URL and the plain path of that file", () => {
    const checkout = fakePackage(join(dirs.make("checkout"), "main"))
    const index = join(checkout, "dist", "index.js")
    const project = dirs.make("project")
    expect(
      pluginConflicts({
        cacheDir: dirs.make("cache"),
        entries: [
          { file: join(project, "opencode.json"), entry: pathToFileURL(index).href },
          { file: join(project, ".opencode", "opencode.json"), entry: pathToFileURL(index).href },
          { file: join(project, "opencode.json"), entry: index },
        ],
      }),
    ).toEqual([])
  })
})
