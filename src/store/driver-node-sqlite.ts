import { createRequire } from "node:module"
import type { DatabaseSync, StatementSync } from "node:sqlite"
import { wrapTransactions, type Database, type Row, type SqlParams, type Statement } from "./driver.js"
import { sqliteCodeName } from "./sqlite-result-codes.js"

/**
 * Opens `filename` with Node's built-in `node:sqlite` (Node >= 22.13): the driver under Node when `better-sqlite3`'s
 * native module does not load (built for another Node, or missing). It behaves as the better-sqlite3 driver does:
 * SQLite's errors carry the code by name (`SQLITE_BUSY`, ...), rows are plain objects, `readOnly` needs an existing
 * file, and closing finalizes the connection's statements.
 */
export function openNodeSqliteDatabase(filename: string, options: { readOnly?: boolean } = {}): Database {
  const { DatabaseSync: Driver } = loadNodeSqlite()
  const db = named(() => new Driver(filename, options.readOnly ? { readOnly: true } : {}))
  return wrapTransactions({
    driver: "node:sqlite",
    exec: (sql) => named(() => db.exec(sql)),
    prepare: (sql) => nodeSqliteStatement(named(() => db.prepare(sql))),
    close: () => named(() => db.close()),
  })
}

/**
 * Loads `node:sqlite`. Node 22 prints "ExperimentalWarning: SQLite is an experimental feature" on the host's stderr
 * (into Pi's terminal) when the module first loads: that one warning is held back; every other warning goes out as
 * before.
 */
export function loadNodeSqlite(): { DatabaseSync: typeof DatabaseSync } {
  const emitWarning = process.emitWarning
  process.emitWarning = function filtered(this: unknown, warning: string | Error, ...rest: unknown[]): void {
    const text = typeof warning === "string" ? warning : warning.message
    const type = typeof rest[0] === "string" ? rest[0] : (rest[0] as { type?: unknown } | undefined)?.type
    if (/^SQLite is an experimental feature/.test(text) && (type === "ExperimentalWarning" || (warning as Error).name === "ExperimentalWarning")) return
    ;(emitWarning as (...args: unknown[]) => void).call(process, warning, ...rest)
  } as typeof process.emitWarning
  try {
    return createRequire(import.meta.url)("node:sqlite") as { DatabaseSync: typeof DatabaseSync }
  } finally {
    process.emitWarning = emitWarning
  }
}

function nodeSqliteStatement(statement: StatementSync): Statement {
  const args = (params?: SqlParams): unknown[] => (params === undefined ? [] : Array.isArray(params) ? params : [params])
  return {
    get: (params) => {
      const row = named(() => statement.get(...args(params)))
      return row === undefined ? undefined : ({ ...row } as Row)
    },
    all: (params) => named(() => statement.all(...args(params))).map((row) => ({ ...row }) as Row),
    run: (params) => {
      const result = named(() => statement.run(...args(params)))
      return { changes: Number(result.changes), lastInsertRowid: Number(result.lastInsertRowid) }
    },
  }
}

/** Runs `fn`; a SQLite error it throws gets its code by name, as the other drivers report it. */
function named<T>(fn: () => T): T {
  try {
    return fn()
  } catch (error) {
    throw withSqliteCode(error)
  }
}

function withSqliteCode(error: unknown): unknown {
  if (!(error instanceof Error)) return error
  const errcode = (error as { errcode?: unknown }).errcode
  if (typeof errcode !== "number") return error
  Object.defineProperty(error, "code", { value: sqliteCodeName(errcode), configurable: true, enumerable: true, writable: true })
  return error
}
