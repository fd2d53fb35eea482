import type { IngestPlan } from "../session/plan-ingest.js"
import type { Database } from "./driver.js"
import { statement } from "./statements.js"

/**
 * Writes one ingest plan in the caller's transaction. Inserts are idempotent (`ON CONFLICT DO NOTHING`), and a
 * stored part's content is only ever replaced while it is not final, so pristine content is never rewritten.
 */
export function writeIngestPlan(db: Database, plan: IngestPlan, now: number, pass: number | null = null): void {
  const insertMessage = statement(
    db,
    `INSERT INTO messages (session_id, id, seq, role, created_at, info_json, stored_at)
     VALUES (@session_id, @id, @seq, @role, @created_at, @info_json, @now)
     ON CONFLICT (session_id, id) DO NOTHING`,
  )
  const insertPart = statement(
    db,
    `INSERT INTO parts (session_id, message_id, id, position, type, kind, tool, status, final, content_json,
                        content_hash, tokens, call_tokens, stored_at)
     VALUES (@session_id, @message_id, @id, @position, @type, @kind, @tool, @status, @final, @content_json,
             @content_hash, @tokens, @call_tokens, @now)
     ON CONFLICT (session_id, id) DO UPDATE SET
       status = excluded.status, final = excluded.final, content_json = excluded.content_json,
       content_hash = excluded.content_hash, tokens = excluded.tokens, call_tokens = excluded.call_tokens,
       stored_at = excluded.stored_at
     WHERE parts.final = 0`,
  )
  const insertTag = statement(
    db,
    `INSERT INTO tags (session_id, tag, kind, message_id, part_id, tool, status, created_pass)
     VALUES (@session_id, @tag, @kind, @message_id, @part_id, @tool, @status, @created_pass)
     ON CONFLICT DO NOTHING`,
  )
  for (const message of plan.messages) {
    insertMessage.run({
      session_id: plan.sessionId,
      id: message.id,
      seq: message.seq,
      role: message.role,
      created_at: message.createdAt,
      info_json: message.infoJson,
      now,
    })
  }
  for (const part of plan.parts) {
    insertPart.run({
      session_id: plan.sessionId,
      message_id: part.messageId,
      id: part.id,
      position: part.position,
      type: part.type,
      kind: part.kind,
      tool: part.tool,
      status: part.status,
      final: part.final ? 1 : 0,
      content_json: part.contentJson ?? JSON.stringify(part.content),
      content_hash: part.hash,
      tokens: part.tokens,
      call_tokens: part.callTokens,
      now,
    })
  }
  for (const tag of plan.tags) {
    insertTag.run({
      session_id: plan.sessionId,
      tag: tag.tag,
      kind: tag.kind,
      message_id: tag.messageId,
      part_id: tag.partId,
      tool: tag.tool,
      status: tag.status,
      created_pass: pass,
    })
  }
  statement(db, "UPDATE sessions SET next_tag = @next_tag, next_seq = @next_seq, updated_at = @now WHERE id = @id").run({
    id: plan.sessionId,
    next_tag: plan.nextTag,
    next_seq: plan.nextSeq,
    now,
  })
}
