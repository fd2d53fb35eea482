import { chmodSync, closeSync, copyFileSync, mkdirSync, openSync, rmSync, statSync, truncateSync, writeFileSync, writeSync } from "node:fs"
import { execFileSync } from "node:child_process"
import { join } from "node:path"
import BetterSqlite3 from "better-sqlite3"
import type { PluginErrorCode } from "../../src/plugin-error.js"
import { SCHEMA_VERSION } from "../../src/store/migrations/index.js"

/** One way a store file can be broken, and what the refusal must say about it. */
export type BrokenStore = {
  name: string
  code: PluginErrorCode
  /** What the message says about the problem. */
  problem: RegExp
  /** What it tells the user to do. */
  advice: RegExp
  /** The file modes are the point: probed as a user they bind (root writes to read-only files and folders). */
  unprivileged: boolean
  /** Builds the broken store in `dir` (an empty folder) from `good` (an intact store); returns the store's path. */
  make(options: { dir: string; good: string }): string
}

const PAGE = 4096
const MOVE_ASIDE = /move it aside .*fresh/i

/** The cases of the broken-store matrix. */
export const BROKEN_STORES: readonly BrokenStore[] = [
  {
    name: "garbage header",
    code: "db_corrupt",
    problem: /not a SQLite database/,
    advice: MOVE_ASIDE,
    unprivileged: false,
    make: ({ dir, good }) => overwrite(copyStore(good, dir), 0, garbage(100, 1)),
  },
  {
    name: "garbage middle pages",
    code: "db_corrupt",
    problem: /fails SQLite's integrity check|damaged/,
    advice: MOVE_ASIDE,
    unprivileged: false,
    make: ({ dir, good }) => {
      const file = copyStore(good, dir)
      const middle = Math.floor(statSync(file).size / PAGE / 2)
      return overwrite(file, middle * PAGE, garbage(PAGE, 2))
    },
  },
  {
    name: "truncated to half",
    code: "db_corrupt",
    problem: /fails SQLite's integrity check|damaged/,
    advice: MOVE_ASIDE,
    unprivileged: false,
    make: ({ dir, good }) => {
      const file = copyStore(good, dir)
      truncateSync(file, Math.floor(statSync(file).size / PAGE / 2) * PAGE)
      return file
    },
  },
  {
    name: "truncated mid-page",
    code: "db_corrupt",
    problem: /fails SQLite's integrity check|damaged/,
    advice: MOVE_ASIDE,
    unprivileged: false,
    make: ({ dir, good }) => {
      const file = copyStore(good, dir)
      truncateSync(file, statSync(file).size - 1000)
      return file
    },
  },
  {
    name: "empty file",
    code: "db_corrupt",
    problem: /is empty \(0 bytes\)/,
    advice: MOVE_ASIDE,
    unprivileged: false,
    make: ({ dir }) => {
      const file = join(dir, "magic-context.db")
      writeFileSync(file, "", { mode: 0o600 })
      return file
    },
  },
  {
    name: "a directory at the path",
    code: "db_open_failed",
    problem: /is a directory/,
    advice: /database\.path/,
    unprivileged: false,
    make: ({ dir }) => {
      const file = join(dir, "magic-context.db")
      mkdirSync(file)
      return file
    },
  },
  {
    name: "a FIFO at the path",
    code: "db_open_failed",
    problem: /not a regular file/,
    advice: /database\.path/,
    unprivileged: false,
    make: ({ dir }) => {
      const file = join(dir, "magic-context.db")
      execFileSync("mkfifo", ["-m", "600", file])
      return file
    },
  },
  {
    name: "newer user_version",
    code: "db_from_future",
    problem: new RegExp(`schema version ${SCHEMA_VERSION + 7}`),
    advice: /upgrade magic-context/,
    unprivileged: false,
    make: ({ dir, good }) => {
      const file = copyStore(good, dir)
      const raw = new BetterSqlite3(file)
      raw.pragma(`user_version = ${SCHEMA_VERSION + 7}`)
      raw.close()
      return file
    },
  },
  {
    name: "garbage -wal file",
    code: "db_corrupt",
    problem: /-wal.*not a SQLite write-ahead log/,
    advice: /move .*-wal aside/i,
    unprivileged: false,
    make: ({ dir, good }) => {
      const file = copyStore(good, dir)
      writeFileSync(`${file}-wal`, garbage(2 * PAGE, 3), { mode: 0o600 })
      return file
    },
  },
  {
    name: "damaged pages under a live -wal",
    code: "db_corrupt",
    problem: /fails SQLite's integrity check|damaged/,
    advice: MOVE_ASIDE,
    unprivileged: false,
    make: ({ dir, good }) => {
      const file = withLiveWal(good, dir)
      const middle = Math.floor(statSync(file).size / PAGE / 2)
      return overwrite(file, middle * PAGE, garbage(PAGE, 4))
    },
  },
  {
    name: "read-only folder",
    code: "db_open_failed",
    problem: /folder .* is not writable/,
    advice: /make the folder writable|database\.path/i,
    unprivileged: true,
    make: ({ dir, good }) => {
      const file = copyStore(good, dir)
      chmodSync(dir, 0o500)
      return file
    },
  },
  {
    name: "read-only file",
    code: "db_open_failed",
    problem: /is read-only/,
    advice: /chmod u\+w|database\.path/,
    unprivileged: true,
    make: ({ dir, good }) => {
      const file = copyStore(good, dir)
      chmodSync(file, 0o444)
      return file
    },
  },
]

/** Deterministic noise (a linear congruential generator), so every run breaks the same bytes. */
export function garbage(length: number, seed: number): Buffer {
  const bytes = Buffer.alloc(length)
  let state = seed
  for (let index = 0; index < length; index += 1) {
    state = (state * 1_103_515_245 + 12_345) & 0x7fffffff
    bytes[index] = (state >> 16) & 0xff
  }
  return bytes
}

function copyStore(good: string, dir: string): string {
  const file = join(dir, "magic-context.db")
  copyFileSync(good, file)
  return file
}

function overwrite(file: string, offset: number, bytes: Buffer): string {
  const fd = openSync(file, "r+")
  try {
    writeSync(fd, bytes, 0, bytes.length, offset)
  } finally {
    closeSync(fd)
  }
  return file
}

/**
 * A store whose newest transactions are still in its -wal (as after a kill -9): the file and the log are copied
 * while a writer that never checkpoints holds them open.
 */
function withLiveWal(good: string, dir: string): string {
  const scratch = join(dir, "writer")
  mkdirSync(scratch)
  const source = copyStore(good, scratch)
  const writer = new BetterSqlite3(source)
  try {
    writer.pragma("wal_autocheckpoint = 0")
    writer.pragma("journal_mode = WAL")
    const insert = writer.prepare("INSERT INTO meta (key, value) VALUES (?, ?)")
    for (let index = 0; index < 20; index += 1) insert.run(`wal-row-${index}`, "x".repeat(500))
    const file = join(dir, "magic-context.db")
    copyFileSync(source, file)
    copyFileSync(`${source}-wal`, `${file}-wal`)
    return file
  } finally {
    writer.close()
    rmSync(scratch, { recursive: true, force: true })
  }
}
