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
  const { DatabaseSync: Driver } = createRequire(import.meta.url)("node:sqlite") as { DatabaseSync: typeof DatabaseSync }
  const db = named(() => new Driver(filename, options.readOnly ? { readOnly: true } : {}))
  return wrapTransactions({
    driver: "node:sqlite",
    exec: (sql) => named(() => db.exec(sql)),
    prepare: (sql) => nodeSqliteStatement(named(() => db.prepare(sql))),
    close: () => named(() => db.close()),
  })
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
