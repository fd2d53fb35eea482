import type { Database } from "./driver.js"
import { statement } from "./statements.js"

export type RawPart = {
  messageId: string
  id: string
  position: number
  type: string
  final: boolean
  content: unknown
  tokens: number
  callTokens: number
}

/** The pristine stored parts of a session in conversation order (message sequence, then position). */
export function readRawParts(db: Database, sessionId: string): RawPart[] {
  return statement(
    db,
    `SELECT p.message_id, p.id, p.position, p.type, p.final, p.content_json, p.tokens, p.call_tokens
     FROM parts p JOIN messages m ON m.session_id = p.session_id AND m.id = p.message_id
     WHERE p.session_id = ? ORDER BY m.seq, p.position`,
  )
    .all([sessionId])
    .map((row) => ({
      messageId: String(row["message_id"]),
      id: String(row["id"]),
      position: Number(row["position"]),
      type: String(row["type"]),
      final: Number(row["final"]) === 1,
      content: JSON.parse(String(row["content_json"])) as unknown,
      tokens: Number(row["tokens"]),
      callTokens: Number(row["call_tokens"]),
    }))
}

/** Row counts per table for one session (diagnostics and tests). */
export function countSessionRows(db: Database, sessionId: string): { messages: number; parts: number; tags: number; passes: number } {
  const count = (table: string): number =>
    Number(statement(db, `SELECT COUNT(*) AS n FROM ${table} WHERE session_id = ?`).get([sessionId])?.["n"] ?? 0)
  return { messages: count("messages"), parts: count("parts"), tags: count("tags"), passes: count("passes") }
}

/** The user's own message texts of a session (not synthetic, not ignored), in conversation order. */
export function readUserDirectives(db: Database, sessionId: string): string[] {
  return statement(
    db,
    `SELECT p.content_json FROM parts p JOIN messages m ON m.session_id = p.session_id AND m.id = p.message_id
     WHERE p.session_id = ? AND p.kind = 'user' AND p.type = 'text' ORDER BY m.seq, p.position`,
  )
    .all([sessionId])
    .map((row) => JSON.parse(String(row["content_json"])) as { text?: string; synthetic?: boolean; ignored?: boolean })
    .filter((part) => !part.synthetic && !part.ignored && typeof part.text === "string" && part.text.trim().length > 0)
    .map((part) => part.text as string)
}

/** The pristine stored parts of one message, in position order. */
export function readMessageParts(db: Database, sessionId: string, messageId: string): unknown[] {
  return statement(db, "SELECT content_json FROM parts WHERE session_id = ? AND message_id = ? ORDER BY position")
    .all([sessionId, messageId])
    .map((row) => JSON.parse(String(row["content_json"])) as unknown)
}

/** The stored messages (info and parts, pristine) with sequence numbers in [fromSeq, toSeq], in order. */
export function readMessagesBySeq(db: Database, sessionId: string, fromSeq: number, toSeq: number): { info: unknown; parts: unknown[] }[] {
  const messages = statement(
    db,
    "SELECT id, info_json FROM messages WHERE session_id = ? AND seq BETWEEN ? AND ? ORDER BY seq",
  ).all([sessionId, fromSeq, toSeq])
  return messages.map((row) => ({
    info: JSON.parse(String(row["info_json"])) as unknown,
    parts: readMessageParts(db, sessionId, String(row["id"])),
  }))
}

/** The session's tags and the parts they name (any status), in tag order. */
export function readTaggedParts(db: Database, sessionId: string): { tag: number; partId: string }[] {
  return statement(db, "SELECT tag, part_id FROM tags WHERE session_id = ? ORDER BY tag")
    .all([sessionId])
    .map((row) => ({ tag: Number(row["tag"]), partId: String(row["part_id"]) }))
}

/** The sequence number of the session's newest stored message, or -1 when it has none. */
export function lastMessageSeq(db: Database, sessionId: string): number {
  const row = statement(db, "SELECT MAX(seq) AS last FROM messages WHERE session_id = ?").get([sessionId])
  return row?.["last"] === null || row?.["last"] === undefined ? -1 : Number(row["last"])
}
