import { existsSync, readdirSync } from "node:fs"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest"
import { createTempDirs } from "../helpers/temp-dirs.js"

// A Node where neither driver loads (better-sqlite3 built for another Node, no node:sqlite): the choice is the only
// thing faked here; opening the store goes the way it goes in the hosts.
const NO_DRIVER = "no SQLite driver loads in Node 20.0.0: better-sqlite3 does not load (NODE_MODULE_VERSION 127) and Node's built-in node:sqlite is not available (No such built-in module: node:sqlite; it needs Node >= 22.13). Fix: rebuild it for Node 20.0.0 (/usr/bin/node): cd \"/app\" && PATH=\"/usr/bin:$PATH\" npm rebuild better-sqlite3"
const DRIVER_CHOICE = "../../src/store/driver-choice.js"

// The unit files share their workers' module graph (vitest.config.ts: `isolate: false`), so the store modules are
// imported afresh with the choice faked, and the real graph comes back for the files run after this one.
let openDatabase: typeof import("../../src/store/open-database.js").openDatabase
let storeFailureKind: typeof import("../../src/store/store-failure.js").storeFailureKind

beforeAll(async () => {
  vi.resetModules()
  vi.doMock(DRIVER_CHOICE, () => ({ chooseNodeDriver: () => ({ driver: null, message: NO_DRIVER }) }))
  ;({ openDatabase } = await import("../../src/store/open-database.js"))
  ;({ storeFailureKind } = await import("../../src/store/store-failure.js"))
})

afterAll(() => {
  vi.doUnmock(DRIVER_CHOICE)
  vi.resetModules()
})

describe("opening the store where no SQLite driver loads", () => {
  const dirs = createTempDirs()
  afterAll(() => dirs.cleanup())

  it("refuses with db_driver_unavailable, the rebuild command in the message, a store failure of kind no-driver, and writes no store", async () => {
    const folder = dirs.make("no-driver")
    const file = join(folder, "store", "magic-context.db")
    const error = await openDatabase(file).then(
      () => null,
      (thrown: unknown) => thrown,
    )
    expect(error).toMatchObject({ code: "db_driver_unavailable", message: `${file}: cannot open the store: ${NO_DRIVER}` })
    expect(storeFailureKind(error)).toBe("no-driver")
    expect(existsSync(file)).toBe(false)
    expect(readdirSync(folder)).toEqual([])
  })
})
