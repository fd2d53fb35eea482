/** What a thrown value says: an Error's message, or the value as text. */
export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error)
}

/** The `code` a Node, SQLite or Bun error carries ("ENOENT", "SQLITE_CORRUPT", ...), or "" when it has none. */
export function errorCode(error: unknown): string {
  return typeof error === "object" && error !== null && "code" in error ? String(error.code) : ""
}
