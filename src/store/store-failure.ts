import { isPluginError } from "../plugin-error.js"

/**
 * Why the store could not be used: another process holds its lock (`busy`: the work is written once it is free), it
 * was written by a newer magic-context (`from-future`), no SQLite driver loads in the running Node (`no-driver`), or
 * it cannot be opened or written at all (`unusable`).
 */
export type StoreFailureKind = "busy" | "from-future" | "no-driver" | "unusable"

/** What kind of store failure `error` is, or null when it is not one (a bug elsewhere, a bad tool argument). */
export function storeFailureKind(error: unknown): StoreFailureKind | null {
  if (isBusyError(error)) return "busy"
  if (isPluginError(error, "db_from_future")) return "from-future"
  if (isPluginError(error, "db_driver_unavailable")) return "no-driver"
  if (isPluginError(error) && (error.code.startsWith("db_") || error.code === "migration_failed")) return "unusable"
  return sqliteCode(error) === null ? null : "unusable"
}

/**
 * True when `error` is SQLite's "database is locked" (SQLITE_BUSY and its extended codes), raised directly by either
 * driver or wrapped in a PluginError by `openDatabase` (which keeps the message, not the error).
 */
export function isBusyError(error: unknown): boolean {
  if (sqliteCode(error)?.startsWith("SQLITE_BUSY")) return true
  return error instanceof Error && /\bdatabase is locked\b/.test(error.message)
}

function sqliteCode(error: unknown): string | null {
  if (error === null || typeof error !== "object") return null
  const code = (error as { code?: unknown }).code
  return typeof code === "string" && code.startsWith("SQLITE_") ? code : null
}
