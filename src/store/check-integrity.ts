import { PluginError } from "../plugin-error.js"
import type { Database } from "./driver.js"
import { errorCode, errorMessage } from "./error-details.js"
import { corruptStore } from "./store-problems.js"

/** How many of SQLite's complaints a refusal quotes. */
const QUOTED_LINES = 3

/**
 * Runs `PRAGMA quick_check` (every page and b-tree structure, without the index cross-check of integrity_check) and
 * refuses a store it finds damaged, quoting what SQLite said. SQLite errors on the way (not a database, a page it
 * cannot parse) are refusals too; other errors (a lock, an I/O error) are passed on as the open failing.
 */
export function assertIntact(db: Database, file: string): void {
  let complaints: string[]
  try {
    complaints = db
      .prepare("PRAGMA quick_check")
      .all()
      .flatMap((row) => String(Object.values(row)[0] ?? "").split("\n"))
      .filter((line) => line.length > 0 && !line.startsWith("*** in database"))
  } catch (error) {
    throw storeReadError(error, file)
  }
  if (complaints.length === 1 && complaints[0] === "ok") return
  const quoted = complaints.slice(0, QUOTED_LINES).join("; ")
  const more = complaints.length > QUOTED_LINES ? `; ${complaints.length - QUOTED_LINES} more` : ""
  throw corruptStore(file, `the store fails SQLite's integrity check (PRAGMA quick_check: ${quoted}${more})`, {
    recoverable: true,
  })
}

/** What an error SQLite raised while reading the store means for the user: a damaged file, or the open failing. */
export function storeReadError(error: unknown, file: string): PluginError {
  if (error instanceof PluginError) return error
  const code = errorCode(error)
  const said = errorMessage(error)
  if (code.startsWith("SQLITE_NOTADB")) return corruptStore(file, `not a SQLite database (SQLite: ${said})`, { recoverable: false })
  if (code.startsWith("SQLITE_CORRUPT")) return corruptStore(file, `the store is damaged (SQLite: ${said})`, { recoverable: true })
  return new PluginError("db_open_failed", `${file}: cannot read the store: ${said}`, { file })
}
