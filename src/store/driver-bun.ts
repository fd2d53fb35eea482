import { Database as BunDatabase } from "bun:sqlite"
import { wrapTransactions, type Database, type Row, type RunResult, type SqlParams, type Statement } from "./driver.js"

/** Opens `filename` with `bun:sqlite` (the runtime inside OpenCode). */
export function openBunDatabase(filename: string): Database {
  // strict: named parameters are written without their sigil, as with better-sqlite3.
  const db = new BunDatabase(filename, { create: true, readwrite: true, strict: true })
  return wrapTransactions({
    driver: "bun:sqlite",
    exec: (sql) => db.exec(sql),
    prepare: (sql) => bunStatement(db.prepare(sql)),
    close: () => db.close(),
  })
}

function bunStatement(statement: import("bun:sqlite").BunStatement): Statement {
  const args = (params?: SqlParams): unknown[] => (params === undefined ? [] : Array.isArray(params) ? params : [params])
  return {
    get: (params) => (statement.get(...args(params)) ?? undefined) as Row | undefined,
    all: (params) => statement.all(...args(params)) as Row[],
    run: (params): RunResult => {
      const result = statement.run(...args(params))
      return { changes: result.changes, lastInsertRowid: Number(result.lastInsertRowid) }
    },
  }
}
