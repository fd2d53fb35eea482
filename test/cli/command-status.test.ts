import { existsSync, mkdirSync, readdirSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { afterEach, describe, expect, it } from "vitest"
import { openDatabase } from "../../src/store/open-database.js"
import { recordError } from "../../src/store/error-repository.js"
import { ensureSession } from "../../src/store/session-repository.js"
import { runCliCaptured } from "../helpers/run-cli.js"
import { createTempDirs, createTempHome } from "../helpers/temp-dirs.js"

const dirs = createTempDirs()

afterEach(() => {
  dirs.cleanup()
})

describe("commandStatus", () => {
  it("says there is no store yet and creates neither the live store nor its folder", async () => {
    const home = createTempHome(dirs)
    const { code, io } = await runCliCaptured(["status"], { env: home.env, cwd: home.home })
    expect(code).toBe(1)
    const store = join(home.dataHome, "magic-context", "magic-context.db")
    expect(io.stderrText()).toBe(
      `${store}: no magic-context store here yet (it is created when OpenCode or Pi first runs with magic-context)`,
    )
    expect(readdirSync(home.dataHome)).toEqual([])
    expect(readdirSync(home.home)).toEqual([])
  })

  it("creates nothing for a --db path that does not exist", async () => {
    const home = createTempHome(dirs)
    const file = join(dirs.make("status"), "missing", "store.db")
    const { code, io } = await runCliCaptured(["status", "--db", file], { env: home.env, cwd: home.home })
    expect(code).toBe(1)
    expect(io.stderrText()).toContain(`${file}: no magic-context store here yet`)
    expect(existsSync(join(file, ".."))).toBe(false)
  })
})

describe("commandStatus for a Pi session", () => {
  it("lists the session with its host and shows Pi's compaction settings from the session's project", async () => {
    const home = createTempHome(dirs)
    const project = dirs.make("pi-project")
    mkdirSync(join(project, ".pi"))
    writeFileSync(join(project, ".pi", "settings.json"), JSON.stringify({ compaction: { enabled: false } }))
    const file = join(dirs.make("store"), "store.db")
    const db = await openDatabase(file)
    ensureSession(db, { id: "pi-session", source: "pi", projectId: null, directory: project, title: null }, 1_000)
    db.close()

    const listed = await runCliCaptured(["status", "--db", file, "--list"], { env: home.env, cwd: home.home })
    expect(listed.code).toBe(0)
    expect(listed.io.stdoutText()).toBe(`pi-session  pi  ${project}  1970-01-01 00:00  0 messages, 0 tags, 0 passes`)
    const shown = await runCliCaptured(["status", "--db", file, "--session", "pi-session", "--json"], { env: home.env, cwd: home.home })
    expect(shown.code).toBe(0)
    expect((JSON.parse(shown.io.stdoutText()) as { hostCompaction: unknown }).hostCompaction).toEqual({
      host: "Pi",
      settings: "enabled false",
      recommended: null,
      source: join(project, ".pi", "settings.json"),
    })
  })
})

describe("commandStatus across projects", () => {
  it("shows the newest session of the project directory, lists every session with its project, and as JSON", async () => {
    const home = createTempHome(dirs)
    const mine = dirs.make("mine")
    const other = dirs.make("other")
    const file = join(dirs.make("store"), "store.db")
    const db = await openDatabase(file)
    ensureSession(db, { id: "ses_mine", source: "opencode", projectId: null, directory: mine, title: "my work" }, 1_000)
    ensureSession(db, { id: "ses_other", source: "opencode", projectId: null, directory: other, title: null }, 2_000)
    db.close()

    const shown = await runCliCaptured(["status", "--db", file, "--directory", mine, "--json"], { env: home.env, cwd: home.home })
    expect(shown.code).toBe(0)
    expect((JSON.parse(shown.io.stdoutText()) as { sessionId: string }).sessionId).toBe("ses_mine")
    // From inside the project, without --directory; from elsewhere, the store's newest.
    const inside = await runCliCaptured(["status", "--db", file, "--json"], { env: home.env, cwd: mine })
    expect((JSON.parse(inside.io.stdoutText()) as { sessionId: string }).sessionId).toBe("ses_mine")
    const elsewhere = await runCliCaptured(["status", "--db", file, "--json"], { env: home.env, cwd: home.home })
    expect((JSON.parse(elsewhere.io.stdoutText()) as { sessionId: string }).sessionId).toBe("ses_other")

    const listed = await runCliCaptured(["status", "--db", file, "--list", "--json"], { env: home.env, cwd: home.home })
    expect(JSON.parse(listed.io.stdoutText())).toEqual([
      expect.objectContaining({ id: "ses_other", source: "opencode", directory: other, title: null, updatedAt: 2_000 }),
      expect.objectContaining({ id: "ses_mine", source: "opencode", directory: mine, title: "my work", updatedAt: 1_000 }),
    ])
  })

  it("shows the errors without a session recorded in the project's directory, and no other project's", async () => {
    const home = createTempHome(dirs)
    const mine = dirs.make("mine")
    const other = dirs.make("other")
    const file = join(dirs.make("store"), "store.db")
    const db = await openDatabase(file)
    ensureSession(db, { id: "ses_mine", source: "opencode", projectId: null, directory: mine, title: null }, 1_000)
    ensureSession(db, { id: "ses_other", source: "opencode", projectId: null, directory: other, title: null }, 2_000)
    const sessionless = { sessionId: null, hook: "dispose", code: null, stack: null, instanceId: "1:a" }
    recordError(db, { ...sessionless, at: 3_000, message: "in my project", directory: mine })
    recordError(db, { ...sessionless, at: 4_000, message: "in the other project", directory: other })
    recordError(db, { sessionId: "ses_mine", at: 5_000, hook: "transform", code: null, message: "my session's", stack: null })
    db.close()

    const errorsOf = async (directory: string): Promise<string[]> => {
      const { code, io } = await runCliCaptured(["status", "--db", file, "--directory", directory, "--json"], { env: home.env, cwd: home.home })
      expect(code).toBe(0)
      return (JSON.parse(io.stdoutText()) as { errors: { message: string }[] }).errors.map((error) => error.message)
    }
    expect(await errorsOf(mine)).toEqual(["my session's", "in my project"])
    expect(await errorsOf(other)).toEqual(["in the other project"])
  })

  it("refuses a project directory that does not exist, changing nothing", async () => {
    const home = createTempHome(dirs)
    const missing = join(dirs.make("gone"), "nowhere")
    const { code, io } = await runCliCaptured(["status", "--directory", missing], { env: home.env, cwd: home.home })
    expect(code).toBe(2)
    expect(io.stderrText()).toBe(`${missing}: no such project directory`)
    expect(readdirSync(home.dataHome)).toEqual([])
  })
})
