import { join } from "node:path"
import { afterEach, describe, expect, it } from "vitest"
import { withoutBusyWait } from "../../src/store/busy-timeout.js"
import type { Database } from "../../src/store/driver.js"
import { openDatabase } from "../../src/store/open-database.js"
import { holdStoreLock } from "../helpers/store-lock.js"
import { createTempDirs } from "../helpers/temp-dirs.js"

const dirs = createTempDirs()
afterEach(() => dirs.cleanup())

describe("withoutBusyWait", () => {
  it("fails at once on a locked store, then restores the connection's busy timeout", async () => {
    const file = join(dirs.make("failure"), "store.db")
    const db = await openDatabase(file, { busyTimeoutMs: 2_000 })
    const lock = holdStoreLock(file)
    try {
      const started = performance.now()
      expect(() => withoutBusyWait(db, () => db.exec("INSERT INTO meta (key, value) VALUES ('a', 'b')"))).toThrow(
        /database is locked/,
      )
      expect(performance.now() - started).toBeLessThan(200)
      expect(db.prepare("PRAGMA busy_timeout").get()).toEqual({ timeout: 2_000 })
    } finally {
      lock.release()
    }
    expect(withoutBusyWait(db, () => db.prepare("SELECT 7 AS seven").get())).toEqual({ seven: 7 })
    expect(db.prepare("PRAGMA busy_timeout").get()).toEqual({ timeout: 2_000 })
    db.close()
  })
})

describe("withoutBusyWait, called again and again", () => {
  it("prepares its statement once per connection (the Bun driver keeps every statement it prepared until close)", async () => {
    const db = await openDatabase(join(dirs.make("again"), "store.db"), { busyTimeoutMs: 300 })
    let prepared = 0
    const counting: Database = { ...db, prepare: (sql) => ((prepared += 1), db.prepare(sql)) }
    for (let call = 0; call < 5; call += 1) withoutBusyWait(counting, () => undefined)
    expect(prepared).toBe(1)
    expect(db.prepare("PRAGMA busy_timeout").get()).toEqual({ timeout: 300 })
    db.close()
  })
})
