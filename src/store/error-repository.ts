import type { Database } from "./driver.js"
import { statement } from "./statements.js"

export type ErrorRecord = {
  sessionId: string | null
  at: number
  hook: string
  code: string | null
  message: string
  stack: string | null
}

/** Records an internal error (a hook that failed open, a historian failure, ...). */
export function recordError(db: Database, error: ErrorRecord): void {
  statement(
    db,
    `INSERT INTO errors (session_id, at, hook, code, message, stack)
     VALUES (@session_id, @at, @hook, @code, @message, @stack)`,
  ).run({
    session_id: error.sessionId,
    at: error.at,
    hook: error.hook,
    code: error.code,
    message: error.message,
    stack: error.stack,
  })
}

/** Recent errors, newest first; for one session (plus errors with no session) when `sessionId` is given. */
export function listErrors(db: Database, options: { sessionId?: string; limit?: number } = {}): ErrorRecord[] {
  const limit = options.limit ?? 20
  const rows = options.sessionId
    ? statement(
        db,
        "SELECT * FROM errors WHERE session_id = ? OR session_id IS NULL ORDER BY at DESC, id DESC LIMIT ?",
      ).all([options.sessionId, limit])
    : statement(db, "SELECT * FROM errors ORDER BY at DESC, id DESC LIMIT ?").all([limit])
  return rows.map((row) => ({
    sessionId: row["session_id"] === null ? null : String(row["session_id"]),
    at: Number(row["at"]),
    hook: String(row["hook"]),
    code: row["code"] === null ? null : String(row["code"]),
    message: String(row["message"]),
    stack: row["stack"] === null ? null : String(row["stack"]),
  }))
}

/**
 * True when the session's newest error of `code` came after its newest pass began: a provider rejected the request
 * of that pass, and no pass has run since (errors are recorded when the host reports them, after the request).
 */
export function errorSinceLastPass(db: Database, sessionId: string, code: string): boolean {
  const error = statement(db, "SELECT at FROM errors WHERE session_id = ? AND code = ? ORDER BY at DESC LIMIT 1").get([sessionId, code])
  if (!error) return false
  const pass = statement(db, "SELECT started_at FROM passes WHERE session_id = ? ORDER BY seq DESC LIMIT 1").get([sessionId])
  return Number(error["at"]) >= Number(pass?.["started_at"] ?? 0)
}
