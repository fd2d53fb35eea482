import type { Tier } from "../historian/fidelity-types.js"
import type { Breakdown } from "../render/measure-prompt.js"
import { loadAppliedState } from "../store/applied-state-repository.js"
import { currentTiers, listCompartments } from "../store/compartment-repository.js"
import type { Database } from "../store/driver.js"
import { listErrors, type SessionlessScope } from "../store/error-repository.js"
import { listPins } from "../store/pin-repository.js"
import { readCostCalls, readStatusRows, type CostCallRow } from "../store/status-repository.js"
import { executeCost, sessionCost, type RecordedCall } from "../pressure/session-cost.js"
import { protectedWindow } from "../reduce/protected-window.js"
import { measureHistory, type HistoryMeasure } from "./measure-history.js"
import type { CostEstimate, CostPricing, ReasoningStatus, StatusData } from "./status-data.js"

/** Gathers a session's status from the store (plus what only the caller knows: strategy, threshold, host settings). */
export function gatherStatus(options: {
  db: Database
  sessionId: string
  strategy: string
  thresholdPercent: number | null
  hostCompaction: StatusData["hostCompaction"]
  /** The config's `protected_tokens`, to say whether the last pass's window had to clamp it. */
  configuredProtectedTokens?: number | null
  /** The reasoning rule the last pass ran under and the model it is for (null: no pass of this process). */
  reasoningRule?: Pick<ReasoningStatus, "rule" | "source" | "model"> | null
  /**
   * Whose errors without a session the report lists beside the session's: the host instance asking (its own
   * `/ctx-status`) or a project directory (`magic-context status`); none when absent (the sidebar).
   */
  sessionlessErrors?: SessionlessScope | null
  /** The price list to estimate the session's cost under (null: the report has no cost estimate). */
  pricing?: CostPricing | null
}): StatusData {
  const { db, sessionId } = options
  const rows = readStatusRows(db, sessionId)
  const lastDetail = parse(rows.lastPass?.detail)
  const executeDetail = parse(rows.lastExecute?.detail)
  const errors = listErrors(db, { sessionId, sessionless: options.sessionlessErrors ?? null, limit: 10 })
  return {
    sessionId,
    title: rows.title,
    lastPass: rows.lastPass
      ? {
          seq: rows.lastPass.seq,
          at: rows.lastPass.at,
          decision: rows.lastPass.decision,
          reason: typeof lastDetail["reason"] === "string" ? lastDetail["reason"] : null,
          band: rows.lastPass.band,
          usageTokens: rows.lastPass.usage,
          windowTokens: rows.lastPass.window,
          breakdown: isBreakdown(lastDetail["breakdown"]) ? lastDetail["breakdown"] : null,
          nudge: isNudge(lastDetail["nudge"]) ? lastDetail["nudge"] : null,
        }
      : null,
    thresholdPercent: options.thresholdPercent,
    lastExecute: rows.lastExecute
      ? {
          seq: rows.lastExecute.seq,
          at: rows.lastExecute.at,
          reason: typeof executeDetail["reason"] === "string" ? executeDetail["reason"] : null,
          usageBefore: rows.lastExecute.usage,
          usageAfter: rows.lastExecute.rendered,
          dropped: Array.isArray(executeDetail["dropped"]) ? executeDetail["dropped"].filter((tag): tag is number => typeof tag === "number") : [],
          tierChanges: rows.tierChanges,
          firstDivergence: rows.lastExecute.firstDivergence,
          cost: billedCost(executeDetail["billed"]),
          saved: savedSince(rows.lastExecute, executeDetail["billed"]),
          callsSince: rows.lastExecute.callsSince,
        }
      : null,
    cost: rows.cost,
    queuedDrops: rows.queued,
    tags: rows.tagCounts,
    historian: {
      strategy: options.strategy,
      compartments: rows.compartments.total,
      folded: rows.compartments.folded,
      modelTiers: rows.compartments.modelTiers,
      tiers: Object.fromEntries(rows.currentTiers.map((entry) => [entry.tier, entry.count])),
      lastError: errors.find((error) => error.hook === "historian") ?? null,
    },
    history: appliedHistory(db, sessionId),
    pins: rows.pins,
    errors,
    hostCompaction: options.hostCompaction,
    protectedClamp: clampOf(options.configuredProtectedTokens ?? null, rows.lastPass?.window ?? null),
    reasoning: options.reasoningRule ? { ...options.reasoningRule, rule: withoutPattern(options.reasoningRule.rule), ...rows.reasoning } : null,
    costEstimate: options.pricing ? estimateCost(db, sessionId, options.pricing, rows.lastExecute) : null,
  }
}

/**
 * The session's recorded calls priced under the list in force, against the host alone, and what the newest execute
 * pass cost and saves (the tokens it freed at the read price, over its own call and every call since).
 */
export function estimateCost(
  db: Database,
  sessionId: string,
  pricing: CostPricing,
  execute: { seq: number; usage: number | null; rendered: number | null; callsSince: number } | null,
): CostEstimate {
  const rows = readCostCalls(db, sessionId)
  const { prices } = pricing.prices
  const total = sessionCost({ calls: rows.map(recordedCall), prices, cacheTtlMs: pricing.cacheTtlMs })
  const executeRow = execute ? rows.find((row) => row.seq === execute.seq) : undefined
  const lastExecute =
    execute && executeRow
      ? {
          seq: execute.seq,
          ...executeCost({
            call: executeRow,
            freedTokens: execute.usage === null || execute.rendered === null ? 0 : execute.usage - execute.rendered,
            callsSince: execute.callsSince,
            prices,
          }),
        }
      : null
  return { pricing, calls: total.calls, withPlugin: total.withPlugin, hostAlone: total.hostAlone, lastExecute }
}

/** A stored call with what the host alone would have sent: its messages as stored, its fixed prompt, the calibration. */
function recordedCall(row: CostCallRow): RecordedCall {
  const known = row.transcriptTokens !== null && row.fixedTokens !== null && row.calibrationTokens !== null
  const hostAloneTokens = known ? Math.max(0, (row.transcriptTokens ?? 0) + (row.fixedTokens ?? 0) + (row.calibrationTokens ?? 0)) : null
  return { at: row.at, promptTokens: row.promptTokens, cachedTokens: row.cachedTokens, hostAloneTokens }
}

/** A reasoning rule's row without its model pattern (a RegExp has no JSON form). */
function withoutPattern(rule: ReasoningStatus["rule"] & { models?: RegExp }): ReasoningStatus["rule"] {
  const { models: _pattern, ...row } = rule
  return row
}

/** The recorded cost of a pass's request, or null. */
function billedCost(billed: unknown): number | null {
  const cost = typeof billed === "object" && billed !== null ? (billed as { cost?: unknown }).cost : undefined
  return typeof cost === "number" && Number.isFinite(cost) ? cost : null
}

/**
 * What an execute pass has saved so far: the tokens it took out of the prompt (usage before less after), read from
 * the cache at its own call and every call since, at the cached-read price its request was billed with.
 */
function savedSince(execute: { usage: number | null; rendered: number | null; callsSince: number }, billed: unknown): number | null {
  const price = typeof billed === "object" && billed !== null ? (billed as { readPrice?: unknown }).readPrice : undefined
  if (execute.usage === null || execute.rendered === null || typeof price !== "number") return null
  return Math.max(0, execute.usage - execute.rendered) * price * (execute.callsSince + 1)
}

/** The protected-window clamp the last pass's usable window imposed on the configured size, or null. */
function clampOf(configured: number | null, usableTokens: number | null): StatusData["protectedClamp"] {
  if (usableTokens === null) return null
  const { tokens, clampedFrom } = protectedWindow({ configured, usableTokens })
  return clampedFrom === null ? null : { clampedFrom, tokens, usableTokens }
}

/** The applied history split into the pinned ledger and the compartments by tier (null before the first fold). */
function appliedHistory(db: Database, sessionId: string): HistoryMeasure | null {
  const history = loadAppliedState(db, sessionId).history
  if (!history) return null
  const tiers = currentTiers(db, sessionId)
  const compartments = listCompartments(db, sessionId)
    .filter((compartment) => compartment.status === "folded")
    .map((compartment) => ({
      // An omitted compartment is not rendered: it has no tier in the history.
      tier: shownTier(tiers.get(compartment.id)),
      representations: compartment.representations,
      pinnedFacts: compartment.facts
        .filter((fact) => fact.retention === "PIN")
        .map((fact) => ({ text: fact.text, tags: fact.source.tags })),
    }))
  return measureHistory({ history, compartments, agentPins: listPins(db, sessionId) })
}

function shownTier(tier: Tier | "omitted" | undefined): Tier | null {
  return tier === undefined || tier === "omitted" ? null : tier
}

function parse(json: string | undefined): Record<string, unknown> {
  if (!json) return {}
  try {
    const value: unknown = JSON.parse(json)
    return value !== null && typeof value === "object" ? (value as Record<string, unknown>) : {}
  } catch {
    return {}
  }
}

function isBreakdown(value: unknown): value is Breakdown {
  return value !== null && typeof value === "object" && typeof (value as Record<string, unknown>)["total"] === "number"
}

function isNudge(value: unknown): value is { level: string; channel: number } {
  return value !== null && typeof value === "object" && typeof (value as Record<string, unknown>)["level"] === "string"
}
