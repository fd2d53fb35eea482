import type { DropClassification, DropItem } from "./classify-drop-request.js"
import { formatCount, LISTED_TAG_PIECES } from "./answer-bounds.js"
import { tagListText } from "./parse-drop-ranges.js"

/** One ctx_reduce call per turn beyond this is refused: the agent is told its drops are queued and to move on. */
export const MAX_REDUCE_CALLS_PER_TURN = 3
/** A call whose tags hold fewer tokens than this is refused as not worth a cache rewrite. */
export const MIN_REDUCE_TOKENS = 500

/** Where the session stands, so the answer can say when queued drops land. */
export type LandingOutlook = {
  usagePercent: number
  thresholdPercent: number
  cacheTtlMinutes: number
}

export type DropVerdict =
  | { kind: "refused"; reason: string }
  | { kind: "accepted"; queue: number[]; classification: DropClassification }

/**
 * Decides whether a classified call is carried out. Refuses calls beyond the per-turn cap and calls that would
 * reclaim almost nothing, so the agent cannot fall into a loop of self-compression.
 */
export function judgeDropRequest(options: { classification: DropClassification; callsThisTurn: number }): DropVerdict {
  const { classification, callsThisTurn } = options
  if (callsThisTurn >= MAX_REDUCE_CALLS_PER_TURN) {
    return {
      kind: "refused",
      reason:
        `ctx_reduce was already called ${callsThisTurn} times this turn. Drops you queued land at the next execute ` +
        "pass; do not call it again now, continue with the task.",
    }
  }
  const accepted = [...classification.queued, ...classification.deferred]
  const tokens = sum(accepted)
  if (accepted.length > 0 && tokens < MIN_REDUCE_TOKENS) {
    return {
      kind: "refused",
      reason:
        `the named tags hold only ${tokens} tokens, not worth rewriting the prompt for (minimum ${MIN_REDUCE_TOKENS}). ` +
        "Drop larger finished outputs (file reads, long command output) instead.",
    }
  }
  return { kind: "accepted", queue: accepted.map((item) => item.tag), classification }
}

/**
 * The tool result the agent reads: what was queued, deferred or rejected, why, and when drops land. A call that
 * queued what it named is answered in one line (the answer goes back into every later prompt, and what the raw
 * content and repeated calls come to is in the tool's description already). Rejections are one line per reason, and
 * every list names at most LISTED_TAG_PIECES tags or ranges and counts the rest, so the answer stays under
 * MAX_TOOL_ANSWER_CHARS however many tags the call named.
 */
export function formatDropAnswer(options: { verdict: DropVerdict; notes: readonly string[]; outlook: LandingOutlook }): string {
  const { verdict, notes, outlook } = options
  if (verdict.kind === "refused") return `Refused: ${verdict.reason}`
  const { queued, deferred, rejected } = verdict.classification
  const lines: string[] = []
  if (queued.length > 0) {
    lines.push(`Queued ${describe(queued)}; ${landing(outlook)}`)
  }
  if (deferred.length > 0) {
    lines.push(
      `Deferred ${describe(deferred)}: still in the protected recent window; they land once newer work has moved ` +
        "the window past them.",
    )
  }
  for (const [reason, tags] of byReason(rejected)) lines.push(`Rejected ${rejectedTags(tags)}: ${reason}.`)
  for (const note of notes) lines.push(`Note: ${note}.`)
  if (queued.length === 0 && deferred.length === 0) lines.push("Nothing was queued.")
  return lines.join("\n")
}

function describe(items: readonly DropItem[]): string {
  const noun = items.length === 1 ? "drop" : "drops"
  const tags = tagListText(items.map((item) => item.tag), LISTED_TAG_PIECES)
  return `${items.length} ${noun} (${tags}, ~${sum(items).toLocaleString("en-US")} tokens)`
}

/** The rejected tags per reason, reasons in the order of their first tag. */
function byReason(rejected: DropClassification["rejected"]): Map<string, number[]> {
  const groups = new Map<string, number[]>()
  for (const { tag, reason } of rejected) {
    const group = groups.get(reason) ?? []
    group.push(tag)
    groups.set(reason, group)
  }
  return groups
}

/** `§3§, §5-6§` while every tag is listed; `333 tags (§1§, … and 327 more tags)` once some are only counted. */
function rejectedTags(tags: readonly number[]): string {
  const listed = tagListText(tags)
  const shown = tagListText(tags, LISTED_TAG_PIECES)
  return listed === shown ? listed : `${formatCount(tags.length)} tags (${shown})`
}

function landing(outlook: LandingOutlook): string {
  const usage = Math.round(outlook.usagePercent)
  if (outlook.usagePercent >= outlook.thresholdPercent) {
    return `usage is ${usage}% of the window, at or above the ${outlook.thresholdPercent}% execute threshold: they land on the next model call.`
  }
  return (
    `usage is ${usage}% of the window: they land at the next execute pass (at ${outlook.thresholdPercent}% or after ` +
    `${outlook.cacheTtlMinutes} idle minutes).`
  )
}

function sum(items: readonly DropItem[]): number {
  return items.reduce((total, item) => total + item.tokens, 0)
}
