import { existsSync, readdirSync } from "node:fs"
import { join } from "node:path"
import { afterEach, describe, expect, it } from "vitest"
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
      `${store}: no magic-context store here yet (it is created when OpenCode first runs with the plugin)`,
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
