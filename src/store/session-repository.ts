import type { DropReason, KnownPart, PartKind, SessionState, TagRecord } from "../session/session-state.js"
import { emptySessionState } from "../session/session-state.js"
import type { Database } from "./driver.js"
import { listQueuedDrops, loadAppliedState } from "./applied-state-repository.js"
import { statement } from "./statements.js"

export type SessionSource = "opencode" | "pi" | "replay"

export type SessionInfo = {
  id: string
  source: SessionSource
  projectId: string | null
  directory: string | null
  title: string | null
}

/** Creates the session row if it does not exist yet. */
export function ensureSession(db: Database, session: SessionInfo, now: number): void {
  statement(
    db,
    `INSERT INTO sessions (id, source, project_id, directory, title, created_at, updated_at)
     VALUES (@id, @source, @project_id, @directory, @title, @now, @now)
     ON CONFLICT (id) DO NOTHING`,
  ).run({
    id: session.id,
    source: session.source,
    project_id: session.projectId,
    directory: session.directory,
    title: session.title,
    now,
  })
}

/**
 * Loads what a pass needs to know about a stored session: counters, known message and part ids with their token
 * counts, and tags. One query per table, once per session per process.
 */
export function loadSessionState(
  db: Database,
  sessionId: string,
  prefixTokens: (tag: number) => number,
): SessionState {
  const state = emptySessionState(sessionId)
  const session = statement(db, "SELECT next_tag, next_seq FROM sessions WHERE id = ?").get([sessionId])
  if (!session) return state
  state.nextTag = Number(session["next_tag"])
  state.nextSeq = Number(session["next_seq"])
  const lastPass = statement(db, "SELECT MAX(seq) AS seq FROM passes WHERE session_id = ?").get([sessionId])
  state.nextPass = Number(lastPass?.["seq"] ?? 0) + 1

  for (const row of statement(db, "SELECT id, seq FROM messages WHERE session_id = ?").all([sessionId])) {
    state.messageSeq.set(String(row["id"]), Number(row["seq"]))
  }
  const partRows = statement(
    db,
    "SELECT id, message_id, kind, final, content_hash, tokens, call_tokens, withheld_pass FROM parts WHERE session_id = ?",
  ).all([sessionId])
  for (const row of partRows) {
    const part: KnownPart = {
      messageId: String(row["message_id"]),
      kind: String(row["kind"]) as PartKind,
      final: Number(row["final"]) === 1,
      hash: String(row["content_hash"]),
      tokens: Number(row["tokens"]),
      callTokens: Number(row["call_tokens"]),
      ...(row["withheld_pass"] === null ? {} : { withheld: true as const }),
    }
    state.parts.set(String(row["id"]), part)
  }
  const tagRows = statement(
    db,
    "SELECT tag, kind, message_id, part_id, tool, status, dropped_reason, superseded_by FROM tags WHERE session_id = ? ORDER BY tag",
  ).all([sessionId])
  for (const row of tagRows) {
    const tag: TagRecord = {
      tag: Number(row["tag"]),
      kind: String(row["kind"]) as TagRecord["kind"],
      messageId: String(row["message_id"]),
      partId: String(row["part_id"]),
      tool: row["tool"] === null ? null : String(row["tool"]),
      status: String(row["status"]) as TagRecord["status"],
      droppedReason: row["dropped_reason"] === null ? null : (String(row["dropped_reason"]) as DropReason),
      supersededBy: row["superseded_by"] === null ? null : Number(row["superseded_by"]),
      prefixTokens: prefixTokens(Number(row["tag"])),
    }
    state.tagsByPart.set(tag.partId, tag)
    state.tagsByNumber.set(tag.tag, tag)
  }
  state.applied = loadAppliedState(db, sessionId)
  // The estimates of the last main passes, so the first usage report after a restart calibrates too.
  const recent = statement(
    db,
    "SELECT seq, started_at, detail_json FROM passes WHERE session_id = ? AND trigger != 'compaction' ORDER BY seq DESC LIMIT 32",
  ).all([sessionId])
  for (const row of recent.reverse()) {
    const detail = JSON.parse(String(row["detail_json"])) as { estimate?: unknown; breakdown?: { fixed?: unknown } }
    const { estimate } = detail
    const fixed = detail.breakdown?.fixed
    if (typeof estimate === "number" && typeof fixed === "number") {
      state.recentEstimates.push({ seq: Number(row["seq"]), startedAt: Number(row["started_at"]), estimate, fixed })
    }
  }
  for (const drop of listQueuedDrops(db, sessionId)) state.queued.set(drop.tag, drop)
  return state
}

/**
 * Forgets what earlier passes applied to a session (applied state, reminders, queued and landed drops, compartments
 * with their tiers and selections, pins, withheld reasoning) and keeps the raw messages, parts and tags (all live and
 * sent again) and the pass
 * records. A replay starts from here, so that what it prints depends on the transcript alone, also in a store that
 * holds an earlier run (`replay --db`): otherwise the first turns would render the last run's folded history.
 */
export function resetDerivedState(db: Database, sessionId: string): void {
  for (const sql of [
    "DELETE FROM session_state WHERE session_id = ?",
    "DELETE FROM placements WHERE session_id = ?",
    "DELETE FROM operations WHERE session_id = ?",
    "DELETE FROM reduce_calls WHERE session_id = ?",
    "DELETE FROM selections WHERE session_id = ?",
    "DELETE FROM compartments WHERE session_id = ?",
    "DELETE FROM pins WHERE session_id = ?",
    `UPDATE tags SET status = 'live', dropped_reason = NULL, superseded_by = NULL, dropped_pass = NULL
     WHERE session_id = ?`,
    "UPDATE parts SET withheld_pass = NULL WHERE session_id = ? AND withheld_pass IS NOT NULL",
  ]) {
    statement(db, sql).run([sessionId])
  }
}

export type SessionSummary = {
  id: string
  source: SessionSource
  directory: string | null
  title: string | null
  messages: number
  tags: number
  passes: number
  updatedAt: number
}

/** Stored sessions, newest first. */
export function listSessions(db: Database, limit = 50): SessionSummary[] {
  return statement(
    db,
    `SELECT s.id, s.source, s.directory, s.title, s.updated_at,
            (SELECT COUNT(*) FROM messages m WHERE m.session_id = s.id) AS messages,
            (SELECT COUNT(*) FROM tags t WHERE t.session_id = s.id) AS tags,
            (SELECT COUNT(*) FROM passes p WHERE p.session_id = s.id) AS passes
     FROM sessions s ORDER BY s.updated_at DESC, s.id LIMIT ?`,
  )
    .all([limit])
    .map((row) => ({
      id: String(row["id"]),
      source: String(row["source"]) as SessionSource,
      directory: row["directory"] === null ? null : String(row["directory"]),
      title: row["title"] === null ? null : String(row["title"]),
      messages: Number(row["messages"]),
      tags: Number(row["tags"]),
      passes: Number(row["passes"]),
      updatedAt: Number(row["updated_at"]),
    }))
}

/** True when the store holds the session. */
export function hasSession(db: Database, sessionId: string): boolean {
  return statement(db, "SELECT 1 AS found FROM sessions WHERE id = ?").get([sessionId]) !== undefined
}
