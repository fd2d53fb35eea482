import { createHash } from "node:crypto"
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import BetterSqlite3 from "better-sqlite3"
import { afterEach, describe, expect, it } from "vitest"
import { panelText, sidebarPanel } from "../../src/status/sidebar-panel.js"
import { SCHEMA_VERSION } from "../../src/store/migrations/index.js"
import { createPanelSource, type PanelSource } from "../../src/tui/panel-source.js"
import { text, userMessage } from "../helpers/host-messages.js"
import { createPluginHarness, transform } from "../helpers/plugin-harness.js"
import { createTempDirs, createTempHome } from "../helpers/temp-dirs.js"

const SESSION = "ses_panel"
const dirs = createTempDirs()
const sources: PanelSource[] = []
afterEach(() => {
  for (const source of sources.splice(0)) source.close()
  dirs.cleanup()
})

/** A project whose magic-context.jsonc puts the store at `store` with threshold 60%, and a source over it. */
function sourceFor(store: string): PanelSource {
  const home = createTempHome(dirs)
  const project = dirs.make("project")
  writeFileSync(join(project, "magic-context.jsonc"), JSON.stringify({ execute_threshold: 60, database: { path: store } }))
  const source = createPanelSource({ directory: project, env: home.env })
  sources.push(source)
  return source
}

/** A store at `store` holding one session after one transform pass of the plugin. */
async function storeWithOnePass(store: string): Promise<void> {
  const plugin = createPluginHarness({ dbFile: store })
  await transform(plugin.hooks, [userMessage({ id: "msg_1", sessionID: SESSION, created: 10, parts: [text("prt_1", "fix the build")] })])
  await plugin.dispose()
}

const digest = (file: string) => createHash("sha256").update(readFileSync(file)).digest("hex")

describe("createPanelSource", () => {
  it("reads a session's status from the store the config names, with the config's threshold", async () => {
    const store = join(dirs.make("store"), "magic-context.db")
    await storeWithOnePass(store)
    const input = await sourceFor(store).read(SESSION)
    expect(input.kind).toBe("status")
    if (input.kind !== "status") return
    expect(input.status.thresholdPercent).toBe(60)
    expect(input.status.lastPass?.seq).toBe(1)
    expect(panelText(sidebarPanel(input, { now: 0 }))).toContain("· execute at 60%")
  })

  it("carries the config's problems into the status, where the panel shows them", async () => {
    const store = join(dirs.make("store"), "magic-context.db")
    await storeWithOnePass(store)
    const home = createTempHome(dirs)
    const project = dirs.make("project")
    writeFileSync(join(project, "magic-context.jsonc"), JSON.stringify({ execute_threshold: "high", database: { path: store } }))
    const source = createPanelSource({ directory: project, env: home.env })
    sources.push(source)
    const input = await source.read(SESSION)
    expect(input.kind === "status" ? input.status.configProblems : null).toEqual([expect.stringContaining("execute_threshold")])
    expect(panelText(sidebarPanel(input, { now: 0 }))).toContain("! 1 config problem (defaults apply)")
  })

  it("starts on the defaults when a config file cannot be read (a folder in its place), looking for the default store", async () => {
    const home = createTempHome(dirs)
    const project = dirs.make("project")
    mkdirSync(join(project, "magic-context.jsonc"))
    const source = createPanelSource({ directory: project, env: home.env })
    sources.push(source)
    expect(await source.read(SESSION)).toEqual({ kind: "no-store", file: join(home.dataHome, "magic-context", "magic-context.db") })
  })

  it("never writes the store it reads, however often it reads", async () => {
    const store = join(dirs.make("store"), "magic-context.db")
    await storeWithOnePass(store)
    const before = digest(store)
    const source = sourceFor(store)
    for (let read = 0; read < 5; read += 1) expect((await source.read(SESSION)).kind).toBe("status")
    source.close()
    expect(digest(store)).toBe(before)
  })

  it("says there is no store yet, and that it holds nothing for an unknown session", async () => {
    const folder = dirs.make("store")
    const store = join(folder, "magic-context.db")
    const source = sourceFor(store)
    expect(await source.read(SESSION)).toEqual({ kind: "no-store", file: store })
    await storeWithOnePass(store)
    expect(await source.read("ses_other")).toEqual({ kind: "no-session" })
    expect((await source.read(SESSION)).kind).toBe("status")
  })

  it("refuses a store from a newer magic-context with the store's own message, and reads it once it is replaced", async () => {
    const folder = dirs.make("store")
    const store = join(folder, "magic-context.db")
    const raw = new BetterSqlite3(store)
    raw.pragma(`user_version = ${SCHEMA_VERSION + 1}`)
    raw.close()
    const source = sourceFor(store)
    const refused = await source.read(SESSION)
    expect(refused).toEqual({
      kind: "unreadable",
      message: expect.stringContaining(`has schema version ${SCHEMA_VERSION + 1}, but this magic-context understands versions up to ${SCHEMA_VERSION}`),
    })
    rmSync(store)
    await storeWithOnePass(store)
    expect((await source.read(SESSION)).kind).toBe("status")
  })

  it("waits for the plugin to migrate an older store instead of migrating it", async () => {
    const folder = dirs.make("store")
    mkdirSync(folder, { recursive: true })
    const store = join(folder, "magic-context.db")
    const raw = new BetterSqlite3(store)
    raw.pragma("user_version = 1")
    raw.close()
    const input = await sourceFor(store).read(SESSION)
    expect(input).toEqual({ kind: "unreadable", message: `${store} has schema version 1; the plugin migrates it to ${SCHEMA_VERSION} when it next opens it` })
  })

  it("reports a file that is not a store as unreadable, never throwing", async () => {
    const store = join(dirs.make("store"), "magic-context.db")
    writeFileSync(store, "this is not a database ".repeat(100))
    const input = await sourceFor(store).read(SESSION)
    expect(input.kind).toBe("unreadable")
    if (input.kind === "unreadable") expect(input.message).toMatch(/not a database|file is not a database/)
  })
})
