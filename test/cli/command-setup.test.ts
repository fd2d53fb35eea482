import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { parse as parseJsonc } from "jsonc-parser"
import { afterEach, beforeEach, describe, expect, it } from "vitest"
import { OWN_BUILD_ENTRY, OWN_TUI_ENTRY } from "../../src/install/opencode-install.js"
import { fileURLToPath } from "node:url"
import { runCliCaptured } from "../helpers/run-cli.js"
import { createTempDirs, createTempHome, type TempHome } from "../helpers/temp-dirs.js"

const ENTRY = "magic-context"
const REPO_ROOT = fileURLToPath(new URL("../..", import.meta.url)).replace(/\/$/, "")
const dirs = createTempDirs()
let home: TempHome
let project: string

beforeEach(() => {
  home = createTempHome(dirs)
  project = dirs.make("project")
})
afterEach(() => dirs.cleanup())

const setup = (...args: string[]) => runCliCaptured(["setup", "--entry", ENTRY, ...args], { env: home.env, cwd: project })
const read = (file: string) => readFileSync(file, "utf8")

/** A project config as people write them: comments, tab indentation, another plugin, a model and an MCP server. */
const REAL_SHAPED = `{
\t// Team settings; keep the model pinned.
\t"$schema": "https://opencode.ai/config.json",
\t"model": "anthropic/claude-sonnet-4-5",
\t"plugin": ["opencode-wakatime"], // time tracking
\t"mcp": {
\t\t"context7": { "type": "remote", "url": "https://mcp.context7.com/mcp" },
\t},
}
`

describe("magic-context setup", () => {
  it("creates opencode.json and a commented magic-context.jsonc in a project that has neither", async () => {
    const { code, io } = await setup()
    expect(code).toBe(0)
    const written = parseJsonc(read(join(project, "opencode.json")))
    expect(written).toEqual({
      $schema: "https://opencode.ai/config.json",
      plugin: [ENTRY],
      compaction: { auto: false, prune: false },
    })
    const starter = read(join(project, ".opencode", "magic-context.jsonc"))
    // "$schema" and comments only: the file sets no value, so the user's own file and the defaults still apply.
    expect(parseJsonc(starter)).toEqual({ $schema: join(REPO_ROOT, "schema", "magic-context.schema.json") })
    expect(existsSync(parseJsonc(starter).$schema)).toBe(true)
    expect(starter).toContain('//   "execute_threshold": 65')
    expect(parseJsonc(read(join(project, "tui.json")))).toEqual({ plugin: [ENTRY] })
    expect(io.out).toContain(`${join(project, "tui.json")}: plugin: added "${ENTRY}" (the sidebar panel)`)
    expect(io.out).toContain(`check it with: node ${join(REPO_ROOT, "dist", "cli", "bin.js")} doctor --directory ${project}`)
  })

  it("adds the sidebar panel to an existing tui.jsonc, keeping its comments, keybinds and other TUI plugins", async () => {
    const tui = `{
  // my keys
  "keybinds": { "leader": "ctrl+x" },
  "plugin": [["opencode-notify", { "sound": true }]],
}
`
    writeFileSync(join(project, "tui.jsonc"), tui)
    expect((await setup()).code).toBe(0)
    const after = read(join(project, "tui.jsonc"))
    expect(after).toContain("// my keys")
    expect(parseJsonc(after)).toEqual({ keybinds: { leader: "ctrl+x" }, plugin: [["opencode-notify", { sound: true }], ENTRY] })
    expect(existsSync(join(project, "tui.json"))).toBe(false)
    await setup()
    expect(read(join(project, "tui.jsonc"))).toBe(after)
  })

  it("--no-tui leaves tui.json alone", async () => {
    expect((await setup("--no-tui")).code).toBe(0)
    expect(existsSync(join(project, "tui.json"))).toBe(false)
    expect(existsSync(join(project, "opencode.json"))).toBe(true)
  })

  it("refuses a malformed tui.json with its line and column and writes nothing at all", async () => {
    const broken = '{ "plugin": ["a" "b"] }\n'
    writeFileSync(join(project, "tui.json"), broken)
    const { code, io } = await setup()
    expect(code).toBe(1)
    expect(io.err.join("\n")).toMatch(/tui\.json:1:18: not valid JSONC \(CommaExpected\); fix it first, nothing was written/)
    expect(read(join(project, "tui.json"))).toBe(broken)
    expect(existsSync(join(project, "opencode.json"))).toBe(false)
    expect(existsSync(join(project, ".opencode"))).toBe(false)
  })

  it("adds the entry and the settings to a real-shaped file, keeping its comments, tabs and other plugins", async () => {
    writeFileSync(join(project, "opencode.jsonc"), REAL_SHAPED)
    expect((await setup()).code).toBe(0)
    const after = read(join(project, "opencode.jsonc"))
    expect(after).toContain("// Team settings; keep the model pinned.")
    expect(after).toContain("// time tracking")
    expect(after).toMatch(/\n\t"compaction": \{\n\t\t"auto": false,\n\t\t"prune": false\n\t\}/)
    expect(parseJsonc(after)).toMatchObject({ plugin: ["opencode-wakatime", ENTRY], model: "anthropic/claude-sonnet-4-5" })
    expect(existsSync(join(project, "opencode.json"))).toBe(false)
  })

  it("is idempotent: a second run writes nothing and says so", async () => {
    writeFileSync(join(project, "opencode.jsonc"), REAL_SHAPED)
    await setup()
    const once = read(join(project, "opencode.jsonc"))
    const { code, io } = await setup()
    expect(code).toBe(0)
    expect(read(join(project, "opencode.jsonc"))).toBe(once)
    expect(io.out).toContain("nothing to change: already set up")
    expect(io.out.some((line) => line.includes(`plugin: already loads magic-context ("${ENTRY}")`))).toBe(true)
  })

  it("recognizes an existing entry for the package by another spelling and does not add a second", async () => {
    writeFileSync(join(project, "opencode.json"), JSON.stringify({ plugin: ["magic-context@0.1.0"] }, null, 2))
    await setup()
    expect(parseJsonc(read(join(project, "opencode.json"))).plugin).toEqual(["magic-context@0.1.0"])
  })

  it("leaves an explicit compaction choice and proposes the recommendation; --compaction sets it", async () => {
    writeFileSync(join(project, "opencode.json"), JSON.stringify({ compaction: { auto: true } }, null, 2))
    const { io } = await setup()
    expect(parseJsonc(read(join(project, "opencode.json"))).compaction).toEqual({ auto: true, prune: false })
    expect(io.out.some((line) => line.includes("compaction.auto: left at true; magic-context recommends false"))).toBe(true)
    await setup("--compaction")
    expect(parseJsonc(read(join(project, "opencode.json"))).compaction).toEqual({ auto: false, prune: false })
  })

  it("--dry-run prints the diff and writes nothing", async () => {
    writeFileSync(join(project, "opencode.jsonc"), REAL_SHAPED)
    const { code, io } = await setup("--dry-run")
    expect(code).toBe(0)
    expect(read(join(project, "opencode.jsonc"))).toBe(REAL_SHAPED)
    expect(existsSync(join(project, ".opencode"))).toBe(false)
    const out = io.out.join("\n")
    expect(out).toContain(`--- ${join(project, "opencode.jsonc")}`)
    expect(out).toContain(`-\t"plugin": ["opencode-wakatime"], // time tracking`)
    expect(out).toContain(`+\t"plugin": [\n+\t\t"opencode-wakatime",\n+\t\t"${ENTRY}"\n+\t], // time tracking`)
    expect(out).toContain("--- /dev/null")
    expect(out).toContain("dry run: nothing was written")
  })

  it("--global edits the user's OpenCode config and writes the plugin config beside it", async () => {
    expect((await setup("--global")).code).toBe(0)
    expect(parseJsonc(read(join(home.configHome, "opencode", "opencode.json"))).plugin).toEqual([ENTRY])
    expect(parseJsonc(read(join(home.configHome, "opencode", "tui.json"))).plugin).toEqual([ENTRY])
    expect(existsSync(join(home.configHome, "opencode", "magic-context.jsonc"))).toBe(true)
    expect(existsSync(join(project, "opencode.json"))).toBe(false)
  })

  it("keeps an existing magic-context config (project root or .opencode/) as it is", async () => {
    writeFileSync(join(project, "magic-context.jsonc"), '{ "execute_threshold": 70 }')
    const { io } = await setup()
    expect(existsSync(join(project, ".opencode", "magic-context.jsonc"))).toBe(false)
    expect(io.out).toContain(`${join(project, "magic-context.jsonc")}: magic-context config already there, nothing written beside it`)
  })

  it.each([
    ["not valid JSONC", '{\n  "plugin": ["a"]\n  "model": "x"\n}\n', /opencode\.json:3:3: not valid JSONC \(CommaExpected\); fix it first, nothing was written/],
    ["a list at the top", "[]\n", /opencode\.json: expected a JSON object, found a list; fix it first, nothing was written/],
    ["plugin not a list", '{ "plugin": "magic-context" }\n', /opencode\.json: "plugin" is string, expected a list of plugin entries; nothing was written/],
    ["compaction not an object", '{ "compaction": false }\n', /opencode\.json: "compaction" is boolean, expected an object; nothing was written/],
  ])("refuses a file that is %s with a clear error and writes nothing", async (_name, text, message) => {
    writeFileSync(join(project, "opencode.json"), text)
    mkdirSync(join(project, ".opencode"))
    const { code, io } = await setup()
    expect(code).toBe(1)
    expect(io.err.join("\n")).toMatch(message)
    expect(read(join(project, "opencode.json"))).toBe(text)
    expect(existsSync(join(project, ".opencode", "magic-context.jsonc"))).toBe(false)
  })

  it("from a checkout writes the file:// entry of this build, which doctor then recognizes (whatever the folder's name)", async () => {
    const { code } = await runCliCaptured(["setup"], { env: home.env, cwd: project })
    expect(code).toBe(0)
    const entry = (parseJsonc(read(join(project, "opencode.json"))) as { plugin: string[] }).plugin[0]
    // Under vitest the module is src/cli/opencode-install.ts, so "this build" is src/index.js; from dist it is dist/index.js.
    expect(entry).toBe(OWN_BUILD_ENTRY)
    expect((parseJsonc(read(join(project, "tui.json"))) as { plugin: string[] }).plugin).toEqual([OWN_TUI_ENTRY])
    const doctor = await runCliCaptured(["doctor", "--json", "--directory", project], { env: home.env, cwd: project })
    const checks = (JSON.parse(doctor.io.stdoutText()) as { checks: { name: string; status: string }[] }).checks
    expect(checks.find((check) => check.name === "OpenCode plugin entry")?.status).toBe("ok")
  })
  it("never overrides a user-level value: no project config beside the user's, their compaction and plugin entry left to them", async () => {
    const userDir = join(home.configHome, "opencode")
    mkdirSync(userDir, { recursive: true })
    writeFileSync(join(userDir, "magic-context.jsonc"), '{ "execute_threshold": 70 }\n')
    writeFileSync(join(userDir, "opencode.json"), JSON.stringify({ plugin: [ENTRY], compaction: { auto: true } }))
    const { code, io } = await setup()
    expect(code).toBe(0)
    expect(existsSync(join(project, ".opencode", "magic-context.jsonc"))).toBe(false)
    const written = parseJsonc(read(join(project, "opencode.json")))
    expect(written.plugin).toBeUndefined()
    expect(written.compaction).toEqual({ prune: false })
    expect(io.out).toContain(`${join(project, "opencode.json")}: compaction.auto: left to ${join(userDir, "opencode.json")}, which sets it; run setup --compaction to set it here anyway`)
    expect((await setup()).io.out.at(-1)).toBe("nothing to change: already set up")
  })

  it("adds no second entry where OpenCode's own installer already loads the checkout from .opencode/", async () => {
    mkdirSync(join(project, ".opencode"), { recursive: true })
    writeFileSync(join(project, ".opencode", "opencode.json"), JSON.stringify({ plugin: [`${REPO_ROOT}/`] }))
    writeFileSync(join(project, ".opencode", "tui.json"), JSON.stringify({ plugin: [`${REPO_ROOT}/`] }))
    const { code, io } = await runCliCaptured(["setup"], { env: home.env, cwd: project })
    expect(code).toBe(0)
    expect(parseJsonc(read(join(project, "opencode.json"))).plugin).toBeUndefined()
    expect(existsSync(join(project, "tui.json"))).toBe(false)
    expect(io.stdoutText()).toContain(`already loads magic-context (${JSON.stringify(`${REPO_ROOT}/`)}); a second entry would load it twice`)
  })

  it("refuses a project directory that does not exist and writes nothing", async () => {
    const missing = join(project, "nope")
    const { code, io } = await setup("--directory", missing)
    expect(code).toBe(1)
    expect(io.err.join("\n")).toBe(`magic-context setup: --directory ${missing}: no such directory; nothing was written`)
    expect(existsSync(missing)).toBe(false)
  })

  it("--pi adds this package to the project's Pi settings and turns Pi's compaction off; twice changes nothing", async () => {
    const settings = join(project, ".pi", "settings.json")
    const first = await runCliCaptured(["setup", "--pi"], { env: home.env, cwd: project })
    expect(first.code).toBe(0)
    expect(JSON.parse(read(settings))).toEqual({ packages: [REPO_ROOT], compaction: { enabled: false } })
    const again = await runCliCaptured(["setup", "--pi"], { env: home.env, cwd: project })
    expect(again.io.out.at(-1)).toBe("nothing to change: already set up")
    const global = await runCliCaptured(["setup", "--pi", "--global"], { env: home.env, cwd: project })
    expect(global.code).toBe(0)
    expect(JSON.parse(read(join(home.home, ".pi", "agent", "settings.json")))).toEqual({ packages: [REPO_ROOT], compaction: { enabled: false } })
  })

  it("--pi refuses malformed Pi settings with the line and column and writes nothing", async () => {
    const settings = join(project, ".pi", "settings.json")
    mkdirSync(join(project, ".pi"))
    writeFileSync(settings, '{\n  "packages": [\n}\n')
    const { code, io } = await runCliCaptured(["setup", "--pi"], { env: home.env, cwd: project })
    expect(code).toBe(1)
    expect(io.err.join("\n")).toBe(`${settings}:3:1: not valid JSONC (ValueExpected); fix it first, nothing was written`)
    expect(read(settings)).toBe('{\n  "packages": [\n}\n')
  })
})
