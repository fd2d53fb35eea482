import type { Database, Row } from "./driver.js"
import { statement } from "./statements.js"

export type ErrorRecord = {
  sessionId: string | null
  at: number
  hook: string
  code: string | null
  message: string
  stack: string | null
  /** The host instance (one plugin runtime in one process) that recorded it; null or absent when none did. */
  instanceId?: string | null
  /** The project directory of that instance. */
  directory?: string | null
}

/**
 * Which errors recorded without a session a listing of one session's errors includes: those of one host instance
 * (its own `/ctx-status`) or of one project directory (`magic-context status` there). Without a scope, none.
 */
export type SessionlessScope = { instanceId: string } | { directory: string }

/** Records an internal error (a hook that failed open, a historian failure, ...). */
export function recordError(db: Database, error: ErrorRecord): void {
  statement(
    db,
    `INSERT INTO errors (session_id, at, hook, code, message, stack, instance_id, directory)
     VALUES (@session_id, @at, @hook, @code, @message, @stack, @instance_id, @directory)`,
  ).run({
    session_id: error.sessionId,
    at: error.at,
    hook: error.hook,
    code: error.code,
    message: error.message,
    stack: error.stack,
    instance_id: error.instanceId ?? null,
    directory: error.directory ?? null,
  })
}

/**
 * Recent errors, newest first. With `sessionId`: that session's, plus the errors without a session of `sessionless`
 * (none without it); else every error.
 */
export function listErrors(
  db: Database,
  options: { sessionId?: string; sessionless?: SessionlessScope | null; limit?: number } = {},
): ErrorRecord[] {
  const limit = options.limit ?? 20
  return listedRows(db, options.sessionId, options.sessionless ?? null, limit).map((row) => ({
    sessionId: row["session_id"] === null ? null : String(row["session_id"]),
    at: Number(row["at"]),
    hook: String(row["hook"]),
    code: row["code"] === null ? null : String(row["code"]),
    message: String(row["message"]),
    stack: row["stack"] === null ? null : String(row["stack"]),
    instanceId: row["instance_id"] === null ? null : String(row["instance_id"]),
    directory: row["directory"] === null ? null : String(row["directory"]),
  }))
}

function listedRows(db: Database, sessionId: string | undefined, scope: SessionlessScope | null, limit: number): Row[] {
  const order = "ORDER BY at DESC, id DESC LIMIT ?"
  if (sessionId === undefined) return statement(db, `SELECT * FROM errors ${order}`).all([limit])
  if (scope === null) return statement(db, `SELECT * FROM errors WHERE session_id = ? ${order}`).all([sessionId, limit])
  if ("instanceId" in scope) {
    return statement(db, `SELECT * FROM errors WHERE session_id = ? OR (session_id IS NULL AND instance_id = ?) ${order}`).all([
      sessionId,
      scope.instanceId,
      limit,
    ])
  }
  return statement(db, `SELECT * FROM errors WHERE session_id = ? OR (session_id IS NULL AND directory = ?) ${order}`).all([
    sessionId,
    scope.directory,
    limit,
  ])
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
