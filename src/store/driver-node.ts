import { createRequire } from "node:module"
import type BetterSqlite3 from "better-sqlite3"
import { wrapTransactions, type Database, type Row, type SqlParams, type Statement } from "./driver.js"

/** Opens `filename` with `better-sqlite3` (Node: tests, CLI, lab); `readOnly` opens an existing file for reading only. */
export function openNodeDatabase(filename: string, options: { readOnly?: boolean } = {}): Database {
  const require = createRequire(import.meta.url)
  const Driver = require("better-sqlite3") as typeof BetterSqlite3
  const db = options.readOnly ? new Driver(filename, { readonly: true, fileMustExist: true }) : new Driver(filename)
  return wrapTransactions({
    driver: "better-sqlite3",
    exec: (sql) => {
      db.exec(sql)
    },
    prepare: (sql) => nodeStatement(db.prepare(sql)),
    close: () => db.close(),
  })
}

function nodeStatement(statement: BetterSqlite3.Statement): Statement {
  const args = (params?: SqlParams): unknown[] => (params === undefined ? [] : Array.isArray(params) ? params : [params])
  return {
    get: (params) => statement.get(...args(params)) as Row | undefined,
    all: (params) => statement.all(...args(params)) as Row[],
    run: (params) => {
      const result = statement.run(...args(params))
      return { changes: result.changes, lastInsertRowid: Number(result.lastInsertRowid) }
    },
  }
}
