import {
  initialAppliedState,
  type AppliedState,
  type DropReason,
  type FoldedHistory,
  type Placement,
  type QueuedDrop,
} from "../session/session-state.js"
import { z } from "zod"
import type { Database } from "./driver.js"
import { statement } from "./statements.js"

/** The applied state of a session, with the reminders placed in its current epoch. */
export function loadAppliedState(db: Database, sessionId: string): AppliedState {
  const row = statement(db, "SELECT * FROM session_state WHERE session_id = ?").get([sessionId])
  if (!row) return initialAppliedState()
  const epoch = Number(row["epoch"])
  const drainStartedAt = row["drain_started_at"]
  return {
    epoch,
    lastExecutePass: nullableNumber(row["last_execute_pass"]),
    boundarySeq: Number(row["boundary_seq"]),
    drain: drainStartedAt === null ? { active: false } : { active: true, startedAt: Number(drainStartedAt) },
    calibrationTokens: Number(row["calibration_tokens"]),
    calibratedMessageId: row["calibrated_message_id"] === null ? null : String(row["calibrated_message_id"]),
    lastNudgePass: nullableNumber(row["last_nudge_pass"]),
    lastNudgeLevel: row["last_nudge_level"] === null ? null : String(row["last_nudge_level"]),
    lastReducePass: nullableNumber(row["last_reduce_pass"]),
    history: row["history_json"] === null ? null : parseHistory(String(row["history_json"])),
    placements: statement(
      db,
      "SELECT kind, anchor_id, level, text, placed_pass FROM placements WHERE session_id = ? AND epoch = ? ORDER BY id",
    )
      .all([sessionId, epoch])
      .map((placement) => ({
        kind: String(placement["kind"]) as Placement["kind"],
        anchorId: String(placement["anchor_id"]),
        level: String(placement["level"]),
        text: String(placement["text"]),
        placedPass: Number(placement["placed_pass"]),
      })),
  }
}

/** Writes the applied state (not the placements, which are inserted one by one). */
export function saveAppliedState(db: Database, sessionId: string, applied: AppliedState, now: number): void {
  statement(
    db,
    `INSERT INTO session_state (session_id, epoch, last_execute_pass, boundary_seq, drain_started_at, calibration_tokens,
                                calibrated_message_id, last_nudge_pass, last_nudge_level, last_reduce_pass, history_json,
                                updated_at)
     VALUES (@session_id, @epoch, @last_execute_pass, @boundary_seq, @drain_started_at, @calibration_tokens,
             @calibrated_message_id, @last_nudge_pass, @last_nudge_level, @last_reduce_pass, @history_json, @now)
     ON CONFLICT (session_id) DO UPDATE SET
       epoch = excluded.epoch, last_execute_pass = excluded.last_execute_pass, boundary_seq = excluded.boundary_seq,
       drain_started_at = excluded.drain_started_at, calibration_tokens = excluded.calibration_tokens,
       calibrated_message_id = excluded.calibrated_message_id, last_nudge_pass = excluded.last_nudge_pass,
       last_nudge_level = excluded.last_nudge_level, last_reduce_pass = excluded.last_reduce_pass,
       history_json = excluded.history_json, updated_at = excluded.updated_at`,
  ).run({
    session_id: sessionId,
    epoch: applied.epoch,
    last_execute_pass: applied.lastExecutePass,
    boundary_seq: applied.boundarySeq,
    drain_started_at: applied.drain.active ? applied.drain.startedAt : null,
    calibration_tokens: applied.calibrationTokens,
    calibrated_message_id: applied.calibratedMessageId,
    last_nudge_pass: applied.lastNudgePass,
    last_nudge_level: applied.lastNudgeLevel,
    last_reduce_pass: applied.lastReducePass,
    history_json: applied.history === null ? null : JSON.stringify(applied.history),
    now,
  })
}

/** Records a reminder placed in the prompt during `epoch`. */
export function insertPlacement(db: Database, sessionId: string, epoch: number, placement: Placement): void {
  statement(
    db,
    `INSERT INTO placements (session_id, epoch, kind, anchor_id, level, text, placed_pass)
     VALUES (@session_id, @epoch, @kind, @anchor_id, @level, @text, @placed_pass)`,
  ).run({
    session_id: sessionId,
    epoch,
    kind: placement.kind,
    anchor_id: placement.anchorId,
    level: placement.level,
    text: placement.text,
    placed_pass: placement.placedPass,
  })
}

/** Marks tags dropped (their content leaves the prompt; the raw parts stay stored). */
/** Records that `pass` took these reasoning parts out of the prompt (a part already withheld keeps its first pass). */
export function markReasoningWithheld(db: Database, sessionId: string, partIds: readonly string[], pass: number): void {
  const update = statement(db, "UPDATE parts SET withheld_pass = ? WHERE session_id = ? AND id = ? AND withheld_pass IS NULL")
  for (const partId of partIds) update.run([pass, sessionId, partId])
}

export function markTagsDropped(
  db: Database,
  sessionId: string,
  drops: readonly { tag: number; reason: DropReason; supersededBy: number | null }[],
  pass: number,
): void {
  const update = statement(
    db,
    `UPDATE tags SET status = 'dropped', dropped_reason = @reason, superseded_by = @superseded_by, dropped_pass = @pass
     WHERE session_id = @session_id AND tag = @tag AND status = 'live'`,
  )
  for (const drop of drops) {
    update.run({ session_id: sessionId, tag: drop.tag, reason: drop.reason, superseded_by: drop.supersededBy, pass })
  }
}

/** Queues drops requested by ctx_reduce; returns them with their operation ids. */
export function queueDrops(
  db: Database,
  sessionId: string,
  tags: readonly number[],
  options: { pass: number | null; now: number },
): QueuedDrop[] {
  const insert = statement(
    db,
    `INSERT INTO operations (session_id, kind, tag, status, queued_at, queued_pass)
     VALUES (@session_id, 'drop', @tag, 'queued', @now, @pass)`,
  )
  return tags.map((tag) => {
    const result = insert.run({ session_id: sessionId, tag, now: options.now, pass: options.pass })
    return { operationId: result.lastInsertRowid, tag, queuedPass: options.pass }
  })
}

/** Drops queued and not yet applied, oldest first. */
export function listQueuedDrops(db: Database, sessionId: string): QueuedDrop[] {
  return statement(
    db,
    "SELECT id, tag, queued_pass FROM operations WHERE session_id = ? AND kind = 'drop' AND status = 'queued' ORDER BY id",
  )
    .all([sessionId])
    .map((row) => ({ operationId: Number(row["id"]), tag: Number(row["tag"]), queuedPass: nullableNumber(row["queued_pass"]) }))
}

/** Marks queued operations applied at `pass`. */
export function markOperationsApplied(db: Database, operationIds: readonly number[], pass: number): void {
  const update = statement(db, "UPDATE operations SET status = 'applied', applied_pass = ? WHERE id = ? AND status = 'queued'")
  for (const id of operationIds) update.run([pass, id])
}

/** Cancels queued operations (their material left the context before they could land). */
export function cancelOperations(db: Database, operationIds: readonly number[], reason: string): void {
  const update = statement(db, "UPDATE operations SET status = 'cancelled', reason = ? WHERE id = ? AND status = 'queued'")
  for (const id of operationIds) update.run([reason, id])
}

/** Records one ctx_reduce call and its outcome. */
export function recordReduceCall(
  db: Database,
  call: {
    sessionId: string
    turnMessageId: string | null
    at: number
    dropArgument: string
    queued: number
    deferred: number
    rejected: number
    refusedReason: string | null
  },
): void {
  statement(
    db,
    `INSERT INTO reduce_calls (session_id, turn_message_id, at, drop_argument, queued, deferred, rejected, refused_reason)
     VALUES (@session_id, @turn_message_id, @at, @drop_argument, @queued, @deferred, @rejected, @refused_reason)`,
  ).run({
    session_id: call.sessionId,
    turn_message_id: call.turnMessageId,
    at: call.at,
    drop_argument: call.dropArgument,
    queued: call.queued,
    deferred: call.deferred,
    rejected: call.rejected,
    refused_reason: call.refusedReason,
  })
}

/** How many ctx_reduce calls the session made since the given user message (the current turn). */
export function countReduceCalls(db: Database, sessionId: string, turnMessageId: string | null): number {
  const row = turnMessageId
    ? statement(db, "SELECT COUNT(*) AS n FROM reduce_calls WHERE session_id = ? AND turn_message_id = ?").get([
        sessionId,
        turnMessageId,
      ])
    : statement(db, "SELECT COUNT(*) AS n FROM reduce_calls WHERE session_id = ? AND turn_message_id IS NULL").get([sessionId])
  return Number(row?.["n"] ?? 0)
}

const FoldedHistorySchema = z.object({
  foldedThroughSeq: z.number().int(),
  text: z.string(),
  tokens: z.number().int(),
  foldedAtPass: z.number().int().optional(),
})

/** Reads the stored history back through its schema; a record that does not fit is a store error, said plainly. */
function parseHistory(json: string): FoldedHistory {
  const parsed = FoldedHistorySchema.safeParse(JSON.parse(json))
  if (!parsed.success) throw new Error(`session_state.history_json does not fit its schema: ${parsed.error.message}`)
  return parsed.data
}

function nullableNumber(value: unknown): number | null {
  return value === null || value === undefined ? null : Number(value)
}
