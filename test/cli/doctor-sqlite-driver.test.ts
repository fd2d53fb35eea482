import { describe, expect, it } from "vitest"
import { checkSqliteDriver } from "../../src/cli/doctor-sqlite-driver.js"

describe("checkSqliteDriver", () => {
  it("passes where better-sqlite3 loads (the tests' own Node)", () => {
    expect(checkSqliteDriver()).toEqual({ name: "SQLite driver", status: "ok", detail: [`better-sqlite3 loads in Node ${process.versions.node} (${process.execPath})`] })
  })

  it("warns, with the reason, where the store falls back to node:sqlite", () => {
    const check = checkSqliteDriver({ driver: "node:sqlite", reason: "better-sqlite3 does not load: NODE_MODULE_VERSION 115 ... requires 127" })
    expect(check.status).toBe("warn")
    expect(check.detail[0]).toContain("the store uses Node's built-in node:sqlite")
    expect(check.detail[0]).toContain("NODE_MODULE_VERSION 115 ... requires 127")
  })

  it("fails with the rebuild command where no driver loads", () => {
    const message = 'no SQLite driver loads in Node 20.0.0: ... Fix: rebuild it for Node 20.0.0 (/usr/bin/node): cd "/app" && PATH="/usr/bin:$PATH" npm rebuild better-sqlite3'
    expect(checkSqliteDriver({ driver: null, message })).toEqual({ name: "SQLite driver", status: "fail", detail: [message] })
  })
})
