import { execFileSync } from "node:child_process"
import { mkdirSync } from "node:fs"
import { join } from "node:path"
import { afterEach, describe, expect, it } from "vitest"
import { openStoreReader } from "../../src/store/open-store-reader.js"
import { createTempDirs } from "../helpers/temp-dirs.js"

describe("openStoreReader", () => {
  const dirs = createTempDirs()
  afterEach(() => dirs.cleanup())

  // A FIFO at the store path would block SQLite's open until a writer appeared: the viewer must refuse it at once.
  it("refuses a FIFO and a directory at the store path before SQLite opens it", async () => {
    const folder = dirs.make("store")
    const fifo = join(folder, "fifo.db")
    execFileSync("mkfifo", ["-m", "600", fifo])
    await expect(openStoreReader(fifo)).rejects.toThrow(`${fifo}: is a FIFO, socket or device (not a regular file)`)
    const directory = join(folder, "dir.db")
    mkdirSync(directory)
    await expect(openStoreReader(directory)).rejects.toThrow(`${directory}: is a directory (not a regular file)`)
  })
})
