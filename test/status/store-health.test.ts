import { describe, expect, it } from "vitest"
import { storeHealthLines, type StoreHealth } from "../../src/status/store-health.js"

const NOW = 1_700_000_000_000
const FILE = "/home/u/.local/share/magic-context/magic-context.db"

function health(overrides: Partial<StoreHealth>): StoreHealth {
  return {
    kind: "busy",
    file: FILE,
    message: "database is locked",
    since: NOW - 14_000,
    retryAt: NOW + 2_500,
    busyTimeoutMs: 300,
    waitingSessions: 2,
    ...overrides,
  }
}

describe("storeHealthLines", () => {
  it("says who holds a busy store, what is off, that nothing is lost and what to do", () => {
    expect(storeHealthLines(health({}), NOW)).toEqual([
      `Store: busy since 14s ago: another process holds the lock on ${FILE} (each try waits 300 ms).`,
      "  Off while it lasts: storing this session's messages, tags, ctx_reduce drops and history; every model call goes out unchanged (no tags, nothing reduced).",
      "  Nothing is lost: the messages of 2 sessions wait and are written once the store is usable (next try in 3s).",
      `  Fix: if it lasts, find the process holding it (fuser "${FILE}" or lsof "${FILE}") and let it finish or stop it; or raise database.busy_timeout_ms.`,
    ])
  })

  it("tells to move an unusable store aside, with the command", () => {
    const lines = storeHealthLines(
      health({ kind: "unusable", message: `${FILE}: cannot use this file as the magic-context store: file is not a database`, waitingSessions: 1 }),
      NOW,
    )
    expect(lines[0]).toBe(`Store: unusable since 14s ago: ${FILE}: cannot use this file as the magic-context store: file is not a database`)
    expect(lines[2]).toBe("  Nothing is lost: the messages of 1 session wait and are written once the store is usable (next try in 3s).")
    expect(lines[3]).toContain(`mv "${FILE}" "${FILE}.broken"`)
  })

  it("gives the rebuild command, not a move of the file, when no SQLite driver loads in the running Node", () => {
    const message = `${FILE}: cannot open the store: no SQLite driver loads in Node 20.20.2: better-sqlite3 does not load (...) and Node's built-in node:sqlite is not available (...). Fix: rebuild it for Node 20.20.2 (/usr/bin/node): cd "/app" && PATH="/usr/bin:$PATH" npm rebuild better-sqlite3`
    const lines = storeHealthLines(health({ kind: "no-driver", message, waitingSessions: 0, retryAt: NOW }), NOW)
    expect(lines).toEqual([
      `Store: unusable since 14s ago: ${message}`,
      "  Off: storing this session's messages, tags, ctx_reduce drops and history; every model call goes out unchanged (no tags, nothing reduced).",
      "  Next try now.",
    ])
  })

  it("tells to upgrade for a store from a newer version, and gives only the next try when nothing waits", () => {
    const lines = storeHealthLines(health({ kind: "from-future", message: `${FILE}: schema 9 is newer than 3`, waitingSessions: 0, retryAt: NOW }), NOW)
    expect(lines).toEqual([
      `Store: written by a newer magic-context: ${FILE}: schema 9 is newer than 3`,
      "  Off: storing this session's messages, tags, ctx_reduce drops and history; every model call goes out unchanged (no tags, nothing reduced).",
      "  Next try now.",
      "  Fix: upgrade magic-context, or set database.path in magic-context.jsonc to another file.",
    ])
  })
})
