import { createRequire } from "node:module"
import type BetterSqlite3 from "better-sqlite3"

/** Runs one query against the plugin's store (read-only) and closes it. */
export function queryStore<T>(file: string, sql: string, ...params: unknown[]): T[] {
  const db = openStoreReadOnly(file)
  try {
    return db.prepare(sql).all(...params) as T[]
  } finally {
    db.close()
  }
}

/** Opens the plugin's store read-only from the test process (Node, better-sqlite3). */
export function openStoreReadOnly(file: string): BetterSqlite3.Database {
  const require = createRequire(import.meta.url)
  const Driver = require("better-sqlite3") as typeof BetterSqlite3
  return new Driver(file, { readonly: true, fileMustExist: true })
}
