import { closeSync, existsSync, mkdirSync, openSync, readdirSync, realpathSync, statSync, writeFileSync, writeSync } from "node:fs"
import { homedir } from "node:os"
import { dirname, join } from "node:path"
import BetterSqlite3 from "better-sqlite3"
import { afterEach, beforeEach, describe, expect, it } from "vitest"
import type { Check } from "../../src/cli/command-doctor.js"
import { SCHEMA_VERSION } from "../../src/store/migrations/index.js"
import { openDatabase } from "../../src/store/open-database.js"
import { runCliCaptured } from "../helpers/run-cli.js"
import { createTempDirs, createTempHome, type TempHome } from "../helpers/temp-dirs.js"

const CHECK_NAMES = [
  "OpenCode plugin entry",
  "OpenCode sidebar panel",
  "plugin conflicts",
  "magic-context config",
  "SQLite driver",
  "database",
  "token counter",
  "OpenCode compaction",
  "Reasoning rule",
  "Price list",
  "Pi extension",
  "Pi compaction",
  "Pi project trust",
]
const REAL_DEFAULT_STORE = join(homedir(), ".local", "share", "magic-context", "magic-context.db")

const dirs = createTempDirs()
let home: TempHome
let project: string
let realStoreBefore: number | null

beforeEach(() => {
  home = createTempHome(dirs)
  project = dirs.make("project")
  installInOpenCodeCache(home)
  realStoreBefore = existsSync(REAL_DEFAULT_STORE) ? statSync(REAL_DEFAULT_STORE).mtimeMs : null
})

afterEach(() => {
  dirs.cleanup()
  // Whatever a test did, the user's real store is neither created nor written.
  expect(existsSync(REAL_DEFAULT_STORE) ? statSync(REAL_DEFAULT_STORE).mtimeMs : null).toBe(realStoreBefore)
})

function write(file: string, value: unknown): string {
  mkdirSync(join(file, ".."), { recursive: true })
  writeFileSync(file, typeof value === "string" ? value : JSON.stringify(value, null, 2))
  return file
}

async function doctorJson(env: Record<string, string> = {}): Promise<{ code: number; checks: Record<string, Check> }> {
  const { code, io } = await runCliCaptured(["doctor", "--json", "--directory", project], {
    env: { ...home.env, ...env },
    cwd: dirs.make("elsewhere"),
  })
  const parsed = JSON.parse(io.stdoutText()) as { checks: Check[] }
  expect(parsed.checks.map((check) => check.name)).toEqual(CHECK_NAMES)
  return { code, checks: Object.fromEntries(parsed.checks.map((check) => [check.name, check])) }
}

/** The package as OpenCode installs an npm plugin: in its cache, `packages/<name>@latest/node_modules/<name>`. */
function installInOpenCodeCache(temp: TempHome): void {
  const root = join(temp.env["XDG_CACHE_HOME"] as string, "opencode", "packages", "magic-context@latest", "node_modules", "magic-context")
  write(join(root, "package.json"), { name: "magic-context", main: "./dist/index.js", exports: { ".": "./dist/index.js", "./tui": "./dist/tui.js" } })
  write(join(root, "dist", "index.js"), "export default async () => ({})")
  write(join(root, "dist", "tui.js"), "export default {}")
}

/** Overwrites one page of a SQLite file with noise. */
function damagePage(file: string, page: number): void {
  const fd = openSync(file, "r+")
  writeSync(fd, Buffer.alloc(4096, 0xa5), 0, 4096, page * 4096)
  closeSync(fd)
}

const READY = { plugin: ["magic-context"], compaction: { auto: false, prune: false } }

describe("commandDoctor", () => {
  it("fails the plugin entry check in a project without OpenCode config and says what to add", async () => {
    const { code, io } = await runCliCaptured(["doctor"], { env: home.env, cwd: project })
    expect(code).toBe(1)
    const text = io.stdoutText()
    expect(io.out[0]).toBe("[FAIL] OpenCode plugin entry")
    expect(text).toContain(`no OpenCode config for ${project} loads magic-context`)
    expect(text).toContain("fix: run `magic-context setup` from a checkout or an installed tarball (it writes the entry)")
    expect(io.out.at(-1)).toBe("1 check(s) failed.")
  })

  it("passes every check with the plugin entry and compaction off; with no store yet it says so and creates none", async () => {
    const opencodeJson = write(join(project, "opencode.json"), READY)
    const tuiJson = write(join(project, "tui.json"), { plugin: ["magic-context"] })
    const { code, io } = await runCliCaptured(["doctor", "--directory", project], { env: home.env, cwd: home.home })
    expect(code).toBe(0)
    const store = join(home.dataHome, "magic-context", "magic-context.db")
    expect(io.out.filter((line) => line.startsWith("["))).toEqual(CHECK_NAMES.map((name) => `[ok  ] ${name}`))
    const text = io.stdoutText()
    expect(text).toContain(`${opencodeJson}: magic-context`)
    expect(text).toContain(`${tuiJson}: magic-context`)
    expect(text).toContain("no config file (defaults apply)")
    expect(text).toContain(`${store}: no store yet; the plugin creates it on first use`)
    expect(text).toMatch(/o200k_base: loads, "hello world" = 2 tokens/)
    expect(text).toMatch(/cl100k_base: loads, "hello world" = 2 tokens/)
    expect(text).toContain(`compaction.auto = false (${opencodeJson})`)
    expect(text).toContain(`compaction.prune = false (${opencodeJson})`)
    expect(io.out.at(-1)).toBe("magic-context looks ready.")
    // Neither the store nor its folder: doctor looks, the plugin creates.
    expect(readdirSync(home.dataHome)).toEqual([])
    expect(readdirSync(home.home)).toEqual([])
  })

  it("reports an existing store's driver, schema version and sessions, in XDG_DATA_HOME", async () => {
    write(join(project, "opencode.json"), READY)
    const store = join(home.dataHome, "magic-context", "magic-context.db")
    ;(await openDatabase(store)).close()
    const { code, checks } = await doctorJson()
    expect(code).toBe(0)
    expect(checks["database"]).toEqual({
      name: "database",
      status: "ok",
      detail: [`${store} (better-sqlite3), schema version ${SCHEMA_VERSION} of ${SCHEMA_VERSION}, 0 sessions`],
    })
    expect(statSync(store).mode & 0o777).toBe(0o600)
  })

  it("fails the database check for a store that fails SQLite's quick check, quoting it", async () => {
    write(join(project, "opencode.json"), READY)
    const store = join(dirs.make("store"), "damaged.db")
    const db = await openDatabase(store)
    db.exec("CREATE TABLE filler (x TEXT)")
    for (let index = 0; index < 200; index += 1) db.prepare("INSERT INTO filler VALUES (?)").run([`${index}`.repeat(100)])
    db.close()
    damagePage(store, Math.floor(statSync(store).size / 4096 / 2))
    write(join(project, "magic-context.jsonc"), { database: { path: store } })

    const { code, checks } = await doctorJson()
    expect(code).toBe(1)
    expect(checks["database"]?.status).toBe("fail")
    expect(checks["database"]?.detail).toHaveLength(1)
    expect(checks["database"]?.detail[0]).toMatch(
      new RegExp(`^${store}: the store (fails SQLite's integrity check \\(PRAGMA quick_check: .+\\)|is damaged).*Move it aside`),
    )
  })

  it("passes with --json and reports each check's status", async () => {
    write(
      join(project, ".opencode", "opencode.jsonc"),
      `{ "plugin": [["magic-context", {}]], // tuple form\n "compaction": { "auto": false, "prune": false } }`,
    )
    write(join(project, ".opencode", "tui.json"), { plugin: [["magic-context", {}]] })
    const { code, checks } = await doctorJson()
    expect(code).toBe(0)
    expect(Object.values(checks).map((check) => check.status)).toEqual(CHECK_NAMES.map(() => "ok"))
  })

  it("finds the plugin entry in the user's global OpenCode config", async () => {
    const global = write(join(home.configHome, "opencode", "opencode.json"), { plugin: ["magic-context@0.1.0"] })
    const { checks } = await doctorJson()
    expect(checks["OpenCode plugin entry"]).toEqual({
      name: "OpenCode plugin entry",
      status: "ok",
      detail: [`${global}: magic-context@0.1.0`],
    })
  })

  it("fails on a second context plugin and on a magic-context entry whose build is missing, with the fix", async () => {
    const file = write(join(project, "opencode.json"), {
      ...READY,
      plugin: ["magic-context", "@tarquinen/opencode-dcp@3.1.14", "file:///gone/magic-context/dist/index.js"],
    })
    const { code, checks } = await doctorJson()
    expect(code).toBe(1)
    expect(checks["plugin conflicts"]).toEqual({
      name: "plugin conflicts",
      status: "fail",
      detail: [
        `${file}: @tarquinen/opencode-dcp@3.1.14: Dynamic Context Pruning (DCP) is loaded too: two context plugins rewrite the same prompt before every model call`,
        `  fix: remove "@tarquinen/opencode-dcp@3.1.14" from "plugin" in ${file} (or remove magic-context)`,
        `${file}: file:///gone/magic-context/dist/index.js: the entry points at /gone/magic-context/dist/index.js, which does not exist`,
        "  fix: fix the path, or run `magic-context setup` from a checkout or an installed tarball to write a working entry",
      ],
    })
  })

  it("warns, without failing, when no tui.json loads the sidebar panel, and says how to add it", async () => {
    write(join(project, "opencode.json"), READY)
    const { code, checks } = await doctorJson()
    expect(code).toBe(0)
    expect(checks["OpenCode sidebar panel"]).toEqual({
      name: "OpenCode sidebar panel",
      status: "warn",
      detail: [
        `no tui.json for ${project} loads the sidebar panel (the plugin works without it)`,
        "fix: run `magic-context setup` from a checkout or an installed tarball (it adds the panel to tui.json)",
      ],
    })
  })

  it("finds the panel in the global tui.jsonc and fails on a panel entry whose build is missing", async () => {
    write(join(project, "opencode.json"), READY)
    const global = write(join(home.configHome, "opencode", "tui.jsonc"), '{\n  // panels\n  "plugin": ["magic-context@0.1.0"]\n}\n')
    const local = write(join(project, ".opencode", "tui.json"), { plugin: [["file:///gone/magic-context/dist/tui.js", {}]] })
    const { code, checks } = await doctorJson()
    expect(code).toBe(1)
    expect(checks["OpenCode sidebar panel"]?.detail).toEqual([`${global}: magic-context@0.1.0`, `${local}: file:///gone/magic-context/dist/tui.js`])
    expect(checks["plugin conflicts"]?.detail).toEqual([
      `${local}: file:///gone/magic-context/dist/tui.js: the entry points at /gone/magic-context/dist/tui.js, which does not exist`,
      "  fix: fix the path, or run `magic-context setup` from a checkout or an installed tarball to write a working entry",
    ])
  })

  it("warns when OpenCode's prune is on", async () => {
    const file = write(join(project, "opencode.json"), { ...READY, compaction: { auto: false, prune: true } })
    const { code, checks } = await doctorJson()
    expect(code).toBe(0)
    expect(checks["OpenCode compaction"]?.status).toBe("warn")
    expect(checks["OpenCode compaction"]?.detail[1]).toBe(`compaction.prune = true (${file})`)
    expect(checks["OpenCode compaction"]?.detail.join("\n")).toContain(
      'Recommended: "compaction": { "auto": false, "prune": false }',
    )
  })

  it("warns when OpenCode's automatic compaction is left at its default", async () => {
    write(join(project, "opencode.json"), { plugin: ["magic-context"] })
    const { checks } = await doctorJson()
    expect(checks["OpenCode compaction"]?.status).toBe("warn")
    expect(checks["OpenCode compaction"]?.detail[0]).toBe("compaction.auto = true (OpenCode default)")
  })

  it("warns when the configured model runs Anthropic's prefix check on thinking, and names the rule of any other", async () => {
    const file = write(join(project, "opencode.json"), {
      ...READY,
      model: "work/claude-fable-5-1",
      provider: { work: { npm: "@ai-sdk/anthropic", models: { "claude-fable-5-1": {} } } },
    })
    const { code, checks } = await doctorJson()
    expect(code).toBe(0)
    expect(checks["Reasoning rule"]?.status).toBe("warn")
    expect(checks["Reasoning rule"]?.detail[0]).toBe(`work/claude-fable-5-1 (${file}): anthropic-prefix-check, from the provider table`)
    expect(checks["Reasoning rule"]?.detail.join("\n")).toContain("holds\nthose passes for the turn boundary")
    write(join(project, "opencode.json"), { ...READY, model: "openai/gpt-5.4" })
    const other = await doctorJson()
    expect(other.checks["Reasoning rule"]).toMatchObject({ status: "ok", detail: [expect.stringContaining("openai/gpt-5.4"), expect.any(String)] })
    expect(other.checks["Reasoning rule"]?.detail[0]).toContain("openai-responses-reasoning")
  })

  it("names the price list of the configured model, and how to name one where the provider is not in the table", async () => {
    const file = write(join(project, "opencode.json"), { ...READY, model: "anthropic/claude-sonnet-4-5" })
    const known = await doctorJson()
    expect(known.checks["Price list"]).toEqual({
      name: "Price list",
      status: "ok",
      detail: [`anthropic/claude-sonnet-4-5 (${file}): anthropic-5m (the provider's list): cached read 0.1×, cache write 1.25× the uncached input price`],
    })
    write(join(project, "opencode.json"), { ...READY, model: "lab-gateway/house-model" })
    const unknown = await doctorJson()
    expect(unknown.code).toBe(0)
    expect(unknown.checks["Price list"]?.status).toBe("ok")
    expect(unknown.checks["Price list"]?.detail[0]).toContain("anthropic-1h (provider not in the price table")
    expect(unknown.checks["Price list"]?.detail[1]).toContain(`"lab-gateway/*": { "price_list": "openai" }`)
    write(join(project, "magic-context.jsonc"), { models: { "lab-gateway/*": { price_list: "anthropic-5m", prices: { cached_read: 2 } } } })
    const setAside = await doctorJson()
    expect(setAside.checks["Price list"]?.status).toBe("warn")
    expect(setAside.checks["Price list"]?.detail.join("\n")).toContain("models.lab-gateway/*.prices")
  })

  it("takes auto compaction as off from OPENCODE_DISABLE_AUTOCOMPACT", async () => {
    write(join(project, "opencode.json"), { plugin: ["magic-context"], compaction: { auto: true, prune: false } })
    const { checks } = await doctorJson({ OPENCODE_DISABLE_AUTOCOMPACT: "1" })
    expect(checks["OpenCode compaction"]?.status).toBe("ok")
    expect(checks["OpenCode compaction"]?.detail[0]).toBe("compaction.auto = false (OPENCODE_DISABLE_AUTOCOMPACT)")
  })

  it("fails the database check with a clear message for a store written by a newer version", async () => {
    write(join(project, "opencode.json"), READY)
    const store = join(dirs.make("store"), "future.db")
    const raw = new BetterSqlite3(store)
    raw.pragma(`user_version = ${SCHEMA_VERSION + 1}`)
    raw.close()
    write(join(project, "magic-context.jsonc"), { database: { path: store } })

    const { code, checks } = await doctorJson()
    expect(code).toBe(1)
    expect(checks["database"]?.status).toBe("fail")
    expect(checks["database"]?.detail).toEqual([
      `${store} has schema version ${SCHEMA_VERSION + 1}, but this magic-context understands versions up to ` +
        `${SCHEMA_VERSION}. It was written by a newer magic-context: upgrade magic-context, ` +
        "or point database.path at another file.",
    ])
    expect(checks["magic-context config"]?.status).toBe("ok")
    const check = new BetterSqlite3(store, { readonly: true })
    expect(check.pragma("user_version", { simple: true })).toBe(SCHEMA_VERSION + 1)
    check.close()
    expect(existsSync(join(home.dataHome, "magic-context"))).toBe(false)
  })

  it("fails the config check for a bad magic-context value", async () => {
    write(join(project, "opencode.json"), READY)
    const file = write(join(project, "magic-context.jsonc"), { tokeniser: {} })
    const { code, checks } = await doctorJson()
    expect(code).toBe(1)
    expect(checks["magic-context config"]?.status).toBe("fail")
    expect(checks["magic-context config"]?.detail[0]).toBe(`files: ${file}`)
    expect(checks["magic-context config"]?.detail[1]).toContain(`${file}: unknown key "tokeniser" (did you mean "tokenizer"?)`)
  })

  it("fails on an OpenCode config it cannot parse, naming its line and column", async () => {
    write(join(project, "opencode.json"), READY)
    const broken = write(join(project, ".opencode", "opencode.json"), '{\n  "plugin": ["a"]\n  "model": "x"\n}\n')
    const { code, checks } = await doctorJson()
    expect(code).toBe(1)
    expect(checks["OpenCode plugin entry"]?.status).toBe("fail")
    expect(checks["OpenCode plugin entry"]?.detail[1]).toBe(`${broken}:3:3: not valid JSONC (CommaExpected); OpenCode cannot read it either: fix it first`)
  })
  it("fails the unpublished package name that OpenCode has not installed, with the fix", async () => {
    write(join(project, "opencode.json"), READY)
    const { code, checks } = await doctorJson({ XDG_CACHE_HOME: dirs.make("empty-cache") })
    expect(code).toBe(1)
    expect(checks["plugin conflicts"]?.detail[0]).toMatch(/: magic-context: the package "magic-context" is neither in OpenCode's plugin cache .* it is not published on npm yet/)
  })

  it("fails magic-context loaded twice (opencode.json and .opencode/opencode.json, as `opencode plugin` and setup write)", async () => {
    const checkout = join(dirs.make("checkout"), "main")
    write(join(checkout, "package.json"), { name: "magic-context", main: "./dist/index.js" })
    write(join(checkout, "dist", "index.js"), "export default async () => ({})")
    const root = write(join(project, "opencode.json"), { ...READY, plugin: [`file://${checkout}/dist/index.js`] })
    const dotOpencode = write(join(project, ".opencode", "opencode.json"), { plugin: [`${checkout}/`] })
    const { code, checks } = await doctorJson()
    expect(code).toBe(1)
    expect(checks["plugin conflicts"]?.detail).toEqual([
      `${dotOpencode}: ${checkout}/: magic-context's plugin is loaded 2 times ("file://${checkout}/dist/index.js" in ${root}, "${checkout}/" in ${dotOpencode}): OpenCode loads each of these entries`,
      `  fix: keep one: remove "${checkout}/" from "plugin" in ${dotOpencode} ("file://${checkout}/dist/index.js" in ${root} stays)`,
    ])
  })

  it("checks Pi: the extension entry and its build, and Pi's compaction; malformed settings fail with line and column", async () => {
    write(join(project, "opencode.json"), READY)
    write(join(project, "tui.json"), { plugin: ["magic-context"] })
    const settings = write(join(project, ".pi", "settings.json"), { packages: ["../../gone/magic-context"] })
    let result = await doctorJson()
    expect(result.code).toBe(1)
    expect(result.checks["Pi extension"]?.detail[0]).toBe(`${settings}: "../../gone/magic-context": the entry points at ${join(project, "..", "gone", "magic-context")}, which does not exist`)
    expect(result.checks["Pi compaction"]?.status).toBe("warn")
    const checkout = join(dirs.make("checkout"), "magic-context")
    write(join(checkout, "package.json"), { name: "magic-context", pi: { extensions: ["./dist/pi.js"] } })
    write(join(checkout, "dist", "pi.js"), "export default () => {}")
    write(settings, { packages: [checkout], compaction: { enabled: false } })
    result = await doctorJson()
    expect(result.code).toBe(0)
    expect(result.checks["Pi extension"]).toEqual({ name: "Pi extension", status: "ok", detail: [`${settings}: ${checkout}`] })
    write(settings, '{ "packages": [\n  "a"\n  "b"] }')
    result = await doctorJson()
    expect(result.checks["Pi extension"]?.detail[0]).toBe(`${settings}:3:3: not valid JSONC (CommaExpected); Pi cannot read it either`)
  })

  it("checks Pi 1.x's trust of a project whose own settings load magic-context: saved yes, saved no, no decision", async () => {
    write(join(project, "opencode.json"), READY)
    write(join(project, "tui.json"), { plugin: ["magic-context"] })
    const checkout = join(dirs.make("checkout"), "magic-context")
    write(join(checkout, "package.json"), { name: "magic-context", pi: { extensions: ["./dist/pi.js"] } })
    write(join(checkout, "dist", "pi.js"), "export default () => {}")
    write(join(project, ".pi", "settings.json"), { packages: [checkout], compaction: { enabled: false } })
    const trustFile = join(home.home, ".pi", "agent", "trust.json")

    let result = await doctorJson()
    expect(result.code).toBe(0)
    expect(result.checks["Pi project trust"]?.status).toBe("warn")
    expect(result.checks["Pi project trust"]?.detail[0]).toBe(`no saved trust decision for this project; defaultProjectTrust = "ask" (Pi's default)`)

    // A decision saved for an ancestor applies, as Pi reads it (the nearest one wins).
    write(trustFile, { [realpathSync(dirname(project))]: true, [realpathSync(project)]: false })
    result = await doctorJson()
    expect(result.code).toBe(1)
    expect(result.checks["Pi project trust"]?.detail[0]).toBe(`${trustFile}: ${realpathSync(project)} is not trusted`)

    // A trust store Pi cannot parse either: a failure naming the file, line and column.
    write(trustFile, '{ "a": true\n  "b": false }')
    result = await doctorJson()
    expect(result.code).toBe(1)
    expect(result.checks["Pi project trust"]?.detail[0]).toBe(`${trustFile}:2:3: not valid JSONC (CommaExpected); Pi 1.x cannot read it either`)

    write(trustFile, { [realpathSync(dirname(project))]: true })
    result = await doctorJson()
    expect(result.checks["Pi project trust"]).toEqual({ name: "Pi project trust", status: "ok", detail: [`${trustFile}: ${realpathSync(dirname(project))} is trusted`] })

    // Only an entry in the project's own settings needs the project's trust.
    write(join(project, ".pi", "settings.json"), { compaction: { enabled: false } })
    write(join(home.home, ".pi", "agent", "settings.json"), { packages: [checkout] })
    result = await doctorJson()
    expect(result.checks["Pi project trust"]?.detail).toEqual(["no project settings of Pi load magic-context: nothing depends on this project's trust"])
    expect(result.checks["Pi extension"]?.status).toBe("ok")
  })
})
