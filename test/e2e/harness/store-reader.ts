import { createRequire } from "node:module"
import type BetterSqlite3 from "better-sqlite3"

/** Opens the plugin's store read-only from the test process (Node, better-sqlite3). */
export function openStoreReadOnly(file: string): BetterSqlite3.Database {
  const require = createRequire(import.meta.url)
  const Driver = require("better-sqlite3") as typeof BetterSqlite3
  return new Driver(file, { readonly: true, fileMustExist: true })
}
