import { spawnSync } from "node:child_process"
import { existsSync, statSync } from "node:fs"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { openDatabase } from "../../src/store/open-database.js"
import { countSessionRows, readRawParts } from "../../src/store/raw-repository.js"
import { loadSessionState } from "../../src/store/session-repository.js"
import { SCHEMA_VERSION } from "../../src/store/migrations/index.js"
import { createTempDirs } from "../helpers/temp-dirs.js"

const REPO_ROOT = fileURLToPath(new URL("../../", import.meta.url))
const OPENCODE_BIN = join(REPO_ROOT, "node_modules", ".bin", "opencode")
const SCRIPT = fileURLToPath(new URL("./fixtures/bun-store-smoke.ts", import.meta.url))

type SmokeResult = {
  runtime: string
  driver: string
  schemaVersion: number
  journalMode: string
  lastOpenedBy: string
  counts: { messages: number; parts: number; tags: number; passes: number }
  errorsAfterRollback: number
  rollbackError: string | null
  state: {
    nextTag: number
    nextSeq: number
    nextPass: number
    messageSeq: Record<string, number>
    parts: Record<string, unknown>
    tags: unknown[]
    applied: unknown
    queued: unknown[]
  }
  rawParts: unknown[]
  walAfterClose: boolean
}

// The store runs under Bun inside OpenCode, under Node in the CLI: both drivers must read and write one file format.
describe("openBunDatabase", () => {
  const dirs = createTempDirs()
  let file: string
  let result: SmokeResult

  beforeAll(() => {
    expect(existsSync(OPENCODE_BIN), `${OPENCODE_BIN} (the opencode-ai dev dependency) provides Bun`).toBe(true)
    file = join(dirs.make("bun"), "store", "magic-context.db")
    const run = spawnSync(OPENCODE_BIN, [SCRIPT, file], {
      cwd: REPO_ROOT,
      env: { PATH: process.env["PATH"], BUN_BE_BUN: "1", HOME: dirs.make("bun-home"), NO_COLOR: "1" },
      encoding: "utf8",
      timeout: 20_000,
    })
    if (run.error) throw run.error
    expect(run.stderr, "stderr of the Bun script").toBe("")
    expect(run.status, run.stderr).toBe(0)
    const lines = run.stdout.trim().split("\n")
    expect(lines).toHaveLength(1)
    result = JSON.parse(lines[0] ?? "") as SmokeResult
  })

  afterAll(() => {
    dirs.cleanup()
  })

  it("opens the store with bun:sqlite under Bun 1.3", () => {
    expect(result.driver).toBe("bun:sqlite")
    expect(result.runtime).toMatch(/^bun 1\.3\./)
    expect(result.lastOpenedBy).toBe(`bun:sqlite on ${result.runtime}`)
    expect(result.schemaVersion).toBe(SCHEMA_VERSION)
    expect(result.journalMode).toBe("wal")
  })

  it("creates the file owner-only, as under Node", () => {
    expect(statSync(file).mode & 0o777).toBe(0o600)
    expect(statSync(join(file, "..")).mode & 0o777).toBe(0o700)
  })

  it("writes the ingest plan and reads the session state back", () => {
    expect(result.counts).toEqual({ messages: 2, parts: 2, tags: 2, passes: 0 })
    expect(result.state).toMatchObject({ nextTag: 3, nextSeq: 3, nextPass: 1, messageSeq: { m1: 1, m2: 2 } })
    expect(result.state.parts).toMatchObject({
      p1: { messageId: "m1", kind: "user", final: true, tokens: 4, callTokens: 0 },
      p2: { messageId: "m2", kind: "tool", final: true, tokens: 3, callTokens: 7 },
    })
    expect(result.state.tags).toEqual([
      {
        tag: 1,
        kind: "message",
        messageId: "m1",
        partId: "p1",
        tool: null,
        status: "live",
        droppedReason: null,
        supersededBy: null,
        prefixTokens: 10,
      },
      {
        tag: 2,
        kind: "tool",
        messageId: "m2",
        partId: "p2",
        tool: "bash",
        status: "dropped",
        droppedReason: "superseded",
        supersededBy: 1,
        prefixTokens: 20,
      },
    ])
    expect(result.rawParts).toMatchObject([
      { id: "p1", content: { type: "text", text: "run the tests" } },
      { id: "p2", content: { type: "tool", state: { status: "completed", output: "3 passed" } } },
    ])
  })

  it("writes the applied state, queued drops and placements and reads them back", () => {
    expect(result.state.applied).toEqual({
      epoch: 1,
      lastExecutePass: 1,
      boundarySeq: 2,
      drain: { active: true, startedAt: 2_400 },
      calibrationTokens: -12,
      calibratedMessageId: "m2",
      lastNudgePass: null,
      lastNudgeLevel: null,
      lastReducePass: null,
      history: { foldedThroughSeq: 1, text: "history", tokens: 1 },
      placements: [{ kind: "nudge", anchorId: "p2", level: "firm", text: "drop §2§", placedPass: 1 }],
    })
    expect(result.state.queued).toEqual([{ operationId: 1, tag: 1, queuedPass: 1 }])
  })

  it("closes for real: the last connection checkpoints the -wal into the file and removes it", () => {
    expect(result.walAfterClose).toBe(false)
  })

  it("rolls back a transaction that throws", () => {
    expect(result.rollbackError).toBe("roll me back")
    expect(result.errorsAfterRollback).toBe(0)
  })

  it("leaves a file that better-sqlite3 under Node reads with the same rows", async () => {
    const db = await openDatabase(file)
    try {
      expect(db.driver).toBe("better-sqlite3")
      expect(countSessionRows(db, "bun-session")).toEqual(result.counts)
      expect(readRawParts(db, "bun-session")).toEqual(result.rawParts)
      const state = loadSessionState(db, "bun-session", (tag) => tag * 10)
      expect({
        nextTag: state.nextTag,
        nextSeq: state.nextSeq,
        nextPass: state.nextPass,
        messageSeq: Object.fromEntries(state.messageSeq),
        parts: Object.fromEntries(state.parts),
        tags: [...state.tagsByNumber.values()],
        applied: state.applied,
        queued: [...state.queued.values()],
      }).toEqual(result.state)
      expect(db.prepare("SELECT directory, title FROM sessions WHERE id = 'bun-session'").get()).toEqual({
        directory: "/bun",
        title: "from bun",
      })
      const opener = db.prepare("SELECT value FROM meta WHERE key = 'last_opened_by'").get()?.["value"]
      expect(opener).toMatch(/^better-sqlite3 on node /)
    } finally {
      db.close()
    }
  })
})
