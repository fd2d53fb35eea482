import type { Database } from "./driver.js"
import { statement } from "./statements.js"

export type PassTrigger = "transform" | "compaction" | "replay"
export type PassDecision = "execute" | "replay" | "passthrough" | "error"

export type PassRecord = {
  sessionId: string
  seq: number
  startedAt: number
  durationMs: number
  trigger: PassTrigger
  decision: PassDecision
  band: string | null
  usageTokens: number | null
  windowTokens: number | null
  messageCount: number
  newParts: number
  newTags: number
  renderedTokens: number | null
  renderedHash: string | null
  firstDivergence: number | null
  detail: Record<string, unknown>
  error: string | null
}

/** Records one pass and its decision; returns the row id. */
export function recordPass(db: Database, pass: PassRecord): number {
  return statement(
    db,
    `INSERT INTO passes (session_id, seq, started_at, duration_ms, trigger, decision, band, usage_tokens, window_tokens,
                         message_count, new_parts, new_tags, rendered_tokens, rendered_hash, first_divergence,
                         detail_json, error)
     VALUES (@session_id, @seq, @started_at, @duration_ms, @trigger, @decision, @band, @usage_tokens, @window_tokens,
             @message_count, @new_parts, @new_tags, @rendered_tokens, @rendered_hash, @first_divergence,
             @detail_json, @error)`,
  ).run({
    session_id: pass.sessionId,
    seq: pass.seq,
    started_at: pass.startedAt,
    duration_ms: pass.durationMs,
    trigger: pass.trigger,
    decision: pass.decision,
    band: pass.band,
    usage_tokens: pass.usageTokens,
    window_tokens: pass.windowTokens,
    message_count: pass.messageCount,
    new_parts: pass.newParts,
    new_tags: pass.newTags,
    rendered_tokens: pass.renderedTokens,
    rendered_hash: pass.renderedHash,
    first_divergence: pass.firstDivergence,
    detail_json: JSON.stringify(pass.detail),
    error: pass.error,
  }).lastInsertRowid
}

/** The most recent passes of a session, newest first. */
export function listPasses(db: Database, sessionId: string, limit = 20): PassRecord[] {
  return statement(db, "SELECT * FROM passes WHERE session_id = ? ORDER BY seq DESC LIMIT ?")
    .all([sessionId, limit])
    .map((row) => ({
      sessionId: String(row["session_id"]),
      seq: Number(row["seq"]),
      startedAt: Number(row["started_at"]),
      durationMs: Number(row["duration_ms"]),
      trigger: String(row["trigger"]) as PassTrigger,
      decision: String(row["decision"]) as PassDecision,
      band: row["band"] === null ? null : String(row["band"]),
      usageTokens: row["usage_tokens"] === null ? null : Number(row["usage_tokens"]),
      windowTokens: row["window_tokens"] === null ? null : Number(row["window_tokens"]),
      messageCount: Number(row["message_count"]),
      newParts: Number(row["new_parts"]),
      newTags: Number(row["new_tags"]),
      renderedTokens: row["rendered_tokens"] === null ? null : Number(row["rendered_tokens"]),
      renderedHash: row["rendered_hash"] === null ? null : String(row["rendered_hash"]),
      firstDivergence: row["first_divergence"] === null ? null : Number(row["first_divergence"]),
      detail: parseDetail(String(row["detail_json"])),
      error: row["error"] === null ? null : String(row["error"]),
    }))
}

function parseDetail(json: string): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(json)
    return value !== null && typeof value === "object" && !Array.isArray(value) ? (value as Record<string, unknown>) : {}
  } catch {
    return {}
  }
}
