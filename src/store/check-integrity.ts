import { PluginError } from "../plugin-error.js"
import type { Database } from "./driver.js"
import { errorCode, errorMessage } from "./error-details.js"
import { corruptStore } from "./store-problems.js"

/** How many of SQLite's complaints a refusal quotes. */
const QUOTED_LINES = 3

/**
 * Runs `PRAGMA quick_check` (every page and b-tree structure, without the index cross-check of integrity_check) and
 * refuses a store it finds damaged, quoting what SQLite said. An error SQLite raises on the way is thrown as it is
 * (`storeReadError` says what it means).
 */
export function assertIntact(db: Database, file: string): void {
  const complaints = db
    .prepare("PRAGMA quick_check")
    .all()
    .flatMap((row) => String(Object.values(row)[0] ?? "").split("\n"))
    .filter((line) => line.length > 0 && !line.startsWith("*** in database"))
  if (complaints.length === 1 && complaints[0] === "ok") return
  const quoted = complaints.slice(0, QUOTED_LINES).join("; ")
  const more = complaints.length > QUOTED_LINES ? `; ${complaints.length - QUOTED_LINES} more` : ""
  throw corruptStore(file, `the store fails SQLite's integrity check (PRAGMA quick_check: ${quoted}${more})`, {
    recoverable: true,
  })
}

/**
 * What an error raised while reading the store means for the user: not a database or a page SQLite cannot parse is a
 * damaged store (db_corrupt); anything else (a lock, an I/O error) is the open failing. A PluginError stays as it is.
 */
export function storeReadError(error: unknown, file: string): PluginError {
  if (error instanceof PluginError) return error
  const code = errorCode(error)
  const said = errorMessage(error)
  if (code.startsWith("SQLITE_NOTADB")) return corruptStore(file, `not a SQLite database (SQLite: ${said})`, { recoverable: false })
  if (code.startsWith("SQLITE_CORRUPT")) return corruptStore(file, `the store is damaged (SQLite: ${said})`, { recoverable: true })
  return new PluginError("db_open_failed", `${file}: cannot read the store: ${said}`, { file })
}
