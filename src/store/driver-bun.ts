import { Database as BunDatabase } from "bun:sqlite"
import { wrapTransactions, type Database, type Row, type RunResult, type SqlParams, type Statement } from "./driver.js"

/** Opens `filename` with `bun:sqlite` (the runtime inside OpenCode); `readOnly` opens an existing file for reading only. */
export function openBunDatabase(filename: string, options: { readOnly?: boolean } = {}): Database {
  // strict: named parameters are written without their sigil, as with better-sqlite3.
  const db = options.readOnly
    ? new BunDatabase(filename, { readonly: true, strict: true })
    : new BunDatabase(filename, { create: true, readwrite: true, strict: true })
  // bun:sqlite's close() leaves the connection open while any statement is unfinalized (sqlite3_close_v2): no
  // checkpoint, the -wal stays, and a new connection to the same file shares the old one's -shm. So close finalizes
  // every statement this connection prepared first, as better-sqlite3 does.
  const prepared = new Set<import("bun:sqlite").BunStatement>()
  return wrapTransactions({
    driver: "bun:sqlite",
    exec: (sql) => db.exec(sql),
    prepare: (sql) => {
      const statement = db.prepare(sql)
      prepared.add(statement)
      return bunStatement(statement)
    },
    close: () => {
      for (const statement of prepared) statement.finalize()
      prepared.clear()
      db.close()
    },
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
