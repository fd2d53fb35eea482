import type { Breakdown } from "../render/measure-prompt.js"
import type { Database } from "../store/driver.js"
import { listErrors } from "../store/error-repository.js"
import { readStatusRows } from "../store/status-repository.js"
import type { StatusData } from "./status-data.js"

/** Gathers a session's status from the store (plus what only the caller knows: strategy, threshold, host settings). */
export function gatherStatus(options: {
  db: Database
  sessionId: string
  strategy: string
  thresholdPercent: number | null
  hostCompaction: StatusData["hostCompaction"]
}): StatusData {
  const { db, sessionId } = options
  const rows = readStatusRows(db, sessionId)
  const lastDetail = parse(rows.lastPass?.detail)
  const executeDetail = parse(rows.lastExecute?.detail)
  const errors = listErrors(db, { sessionId, limit: 10 })
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
        }
      : null,
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
    pins: rows.pins,
    errors,
    hostCompaction: options.hostCompaction,
  }
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
