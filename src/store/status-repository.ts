import type { Database } from "./driver.js"
import { statement } from "./statements.js"

/** Raw rows the status report is built from (all SQL of the report lives here). */
export type StatusRows = {
  title: string | null
  lastPass: { seq: number; at: number; decision: string; band: string | null; usage: number | null; window: number | null; detail: string } | null
  lastExecute: {
    id: number
    seq: number
    at: number
    usage: number | null
    rendered: number | null
    firstDivergence: number | null
    detail: string
    /** Main passes after it. */
    callsSince: number
  } | null
  /**
   * The estimated prompt cost of the session's main passes that recorded one (`detail.billed`), in uncached-input
   * token units, and the prompt tokens they sent and read from the cache.
   */
  cost: { calls: number; cost: number; promptTokens: number; cachedTokens: number }
  queued: number[]
  tagCounts: { total: number; dropped: number }
  compartments: { total: number; folded: number; modelTiers: number }
  currentTiers: { tier: string; count: number }[]
  tierChanges: { compartment: string; from: string | null; to: string }[]
  pins: number
  /** What the provider's reasoning rule made the passes do: execute passes held back, thinking blocks withheld. */
  reasoning: { deferred: number; withheld: number; withheldTokens: number; runningLoop: number }
}

/** Reads the rows of a session's status report. */
export function readStatusRows(db: Database, sessionId: string): StatusRows {
  const session = statement(db, "SELECT title FROM sessions WHERE id = ?").get([sessionId])
  const last = statement(
    db,
    "SELECT seq, started_at, decision, band, usage_tokens, window_tokens, detail_json FROM passes WHERE session_id = ? AND trigger != 'compaction' ORDER BY seq DESC LIMIT 1",
  ).get([sessionId])
  const execute = statement(
    db,
    "SELECT id, seq, started_at, usage_tokens, rendered_tokens, first_divergence, detail_json FROM passes WHERE session_id = ? AND decision = 'execute' ORDER BY seq DESC LIMIT 1",
  ).get([sessionId])
  const cost = statement(
    db,
    `SELECT COUNT(*) AS calls, SUM(json_extract(detail_json, '$.billed.cost')) AS cost,
            SUM(json_extract(detail_json, '$.billed.uncached') + json_extract(detail_json, '$.billed.cachedRead') +
                json_extract(detail_json, '$.billed.cacheWrite')) AS prompt,
            SUM(json_extract(detail_json, '$.billed.cachedRead')) AS cached
     FROM passes WHERE session_id = ? AND trigger != 'compaction' AND json_valid(detail_json)
       AND json_extract(detail_json, '$.billed.cost') IS NOT NULL`,
  ).get([sessionId])
  const reasoning = statement(
    db,
    `SELECT SUM(json_extract(detail_json, '$.reason') = 'reasoning-deferred') AS deferred,
            SUM(json_extract(detail_json, '$.reasoning.withheld')) AS withheld,
            SUM(json_extract(detail_json, '$.reasoning.tokens')) AS tokens,
            SUM(json_extract(detail_json, '$.reasoning.runningLoop') = 1) AS running
     FROM passes WHERE session_id = ? AND json_valid(detail_json)`,
  ).get([sessionId])
  const count = (sql: string): number => Number(statement(db, sql).get([sessionId])?.["n"] ?? 0)
  return {
    reasoning: {
      deferred: Number(reasoning?.["deferred"] ?? 0),
      withheld: Number(reasoning?.["withheld"] ?? 0),
      withheldTokens: Number(reasoning?.["tokens"] ?? 0),
      runningLoop: Number(reasoning?.["running"] ?? 0),
    },
    title: session?.["title"] == null ? null : String(session["title"]),
    lastPass: last
      ? {
          seq: Number(last["seq"]),
          at: Number(last["started_at"]),
          decision: String(last["decision"]),
          band: last["band"] === null ? null : String(last["band"]),
          usage: last["usage_tokens"] === null ? null : Number(last["usage_tokens"]),
          window: last["window_tokens"] === null ? null : Number(last["window_tokens"]),
          detail: String(last["detail_json"]),
        }
      : null,
    lastExecute: execute
      ? {
          id: Number(execute["id"]),
          seq: Number(execute["seq"]),
          at: Number(execute["started_at"]),
          usage: execute["usage_tokens"] === null ? null : Number(execute["usage_tokens"]),
          rendered: execute["rendered_tokens"] === null ? null : Number(execute["rendered_tokens"]),
          firstDivergence: execute["first_divergence"] === null ? null : Number(execute["first_divergence"]),
          detail: String(execute["detail_json"]),
          callsSince: Number(
            statement(db, "SELECT COUNT(*) AS n FROM passes WHERE session_id = ? AND trigger != 'compaction' AND seq > ?").get([
              sessionId,
              Number(execute["seq"]),
            ])?.["n"] ?? 0,
          ),
        }
      : null,
    cost: {
      calls: Number(cost?.["calls"] ?? 0),
      cost: Number(cost?.["cost"] ?? 0),
      promptTokens: Number(cost?.["prompt"] ?? 0),
      cachedTokens: Number(cost?.["cached"] ?? 0),
    },
    queued: statement(db, "SELECT tag FROM operations WHERE session_id = ? AND status = 'queued' ORDER BY tag")
      .all([sessionId])
      .map((row) => Number(row["tag"])),
    tagCounts: {
      total: count("SELECT COUNT(*) AS n FROM tags WHERE session_id = ?"),
      dropped: count("SELECT COUNT(*) AS n FROM tags WHERE session_id = ? AND status = 'dropped'"),
    },
    compartments: {
      total: count("SELECT COUNT(*) AS n FROM compartments WHERE session_id = ?"),
      folded: count("SELECT COUNT(*) AS n FROM compartments WHERE session_id = ? AND status = 'folded'"),
      modelTiers: count(
        "SELECT COUNT(DISTINCT r.compartment_id) AS n FROM representations r JOIN compartments c ON c.id = r.compartment_id WHERE c.session_id = ? AND r.strategy = 'source-grounded-model'",
      ),
    },
    currentTiers: statement(
      db,
      `SELECT s.tier, COUNT(*) AS n FROM selections s
       WHERE s.session_id = ? AND s.id = (SELECT MAX(id) FROM selections WHERE compartment_id = s.compartment_id)
       GROUP BY s.tier`,
    )
      .all([sessionId])
      .map((row) => ({ tier: String(row["tier"]), count: Number(row["n"]) })),
    tierChanges: execute
      ? statement(db, "SELECT compartment_id, previous_tier, tier FROM selections WHERE pass_id = ? ORDER BY id")
          .all([Number(execute["id"])])
          .map((row) => ({
            compartment: String(row["compartment_id"]).slice(String(row["compartment_id"]).lastIndexOf("#") + 1),
            from: row["previous_tier"] === null ? null : String(row["previous_tier"]),
            to: String(row["tier"]),
          }))
      : [],
    pins: count("SELECT COUNT(*) AS n FROM pins WHERE session_id = ?"),
  }
}

/** One main pass's request as the cost estimate reads it (`pressure/session-cost.ts`). */
export type CostCallRow = {
  seq: number
  at: number
  /** The billed prompt (uncached + cached read + cache write) and its cached read. */
  promptTokens: number
  cachedTokens: number
  /** The stored content of the host's messages at the pass (the first `message_count` by seq), in counted tokens. */
  transcriptTokens: number | null
  /** The pass's fixed prompt (system prompt and tool definitions) and its calibration (provider's count less ours). */
  fixedTokens: number | null
  calibrationTokens: number | null
}

/**
 * The session's main passes that recorded a billed request, oldest first, each with the stored size of the messages
 * the host sent it (what the host alone would have sent, before its fixed prompt).
 */
export function readCostCalls(db: Database, sessionId: string): CostCallRow[] {
  return statement(
    db,
    `WITH message_tokens AS (
       SELECT m.seq, COALESCE(SUM(p.tokens + p.call_tokens), 0) AS tokens
       FROM messages m LEFT JOIN parts p ON p.session_id = m.session_id AND p.message_id = m.id
       WHERE m.session_id = ? GROUP BY m.seq
     ),
     running AS (
       SELECT ROW_NUMBER() OVER (ORDER BY seq) AS n, SUM(tokens) OVER (ORDER BY seq) AS total FROM message_tokens
     )
     SELECT passes.seq, passes.started_at, passes.rendered_tokens, running.total AS transcript,
            json_extract(detail_json, '$.billed.uncached') + json_extract(detail_json, '$.billed.cachedRead') +
              json_extract(detail_json, '$.billed.cacheWrite') AS prompt,
            json_extract(detail_json, '$.billed.cachedRead') AS cached,
            json_extract(detail_json, '$.breakdown.fixed') AS fixed,
            json_extract(detail_json, '$.estimate') AS estimate
     FROM passes LEFT JOIN running ON running.n = passes.message_count
     WHERE passes.session_id = ? AND trigger != 'compaction' AND json_valid(detail_json)
       AND json_extract(detail_json, '$.billed.cost') IS NOT NULL
     ORDER BY passes.seq`,
  )
    .all([sessionId, sessionId])
    .map((row) => {
      const number = (value: unknown): number | null => (typeof value === "number" || typeof value === "bigint" ? Number(value) : null)
      const rendered = number(row["rendered_tokens"])
      const estimate = number(row["estimate"])
      return {
        seq: Number(row["seq"]),
        at: Number(row["started_at"]),
        promptTokens: number(row["prompt"]) ?? 0,
        cachedTokens: number(row["cached"]) ?? 0,
        transcriptTokens: number(row["transcript"]),
        fixedTokens: number(row["fixed"]),
        calibrationTokens: rendered === null || estimate === null ? null : rendered - estimate,
      }
    })
}

/** The newest session of the store, or of one project directory (for `status` without --session). */
export function newestSessionId(db: Database, directory?: string): string | null {
  const row =
    directory === undefined
      ? statement(db, "SELECT id FROM sessions ORDER BY updated_at DESC, id LIMIT 1").get()
      : statement(db, "SELECT id FROM sessions WHERE directory = ? ORDER BY updated_at DESC, id LIMIT 1").get([directory])
  return row ? String(row["id"]) : null
}

/** The model of the session's newest stored user message ("provider" and "model" ids), or null. */
export function newestUserModel(db: Database, sessionId: string): { providerID: string; modelID: string } | null {
  const row = statement(db, "SELECT info_json FROM messages WHERE session_id = ? AND role = 'user' ORDER BY seq DESC LIMIT 1").get([sessionId])
  if (!row) return null
  try {
    const model = (JSON.parse(String(row["info_json"])) as { model?: { providerID?: unknown; modelID?: unknown } }).model
    return typeof model?.providerID === "string" && typeof model.modelID === "string" ? { providerID: model.providerID, modelID: model.modelID } : null
  } catch {
    return null
  }
}
