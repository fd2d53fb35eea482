import type { AppliedState, Placement } from "../session/session-state.js"
import { compactRanges } from "../reduce/parse-drop-ranges.js"
import { reclaimableItems, reclaimableTokens as reclaimableTokensOf } from "../reduce/plan-reclaim.js"
import type { ReduceCaches } from "../reduce/reduce-caches.js"
import { REDUCE_ALONGSIDE } from "../reduce/reduce-timing.js"
import type { LiveItem, LiveView } from "../session/live-view.js"
import { NUDGE_RANK, nudgeFor, type NudgeDecision, type NudgeLevel } from "./nudge-band.js"

/** Passes between two reminders at the same level. */
export const NUDGE_INTERVAL: Readonly<Record<Exclude<NudgeLevel, "quiet">, number>> = { gentle: 10, firm: 6, urgent: 4 }
/**
 * One reminder at a time: while the last one is this recent (in passes) no other is placed, not even when the level
 * rises (the agent has just been told; a second reminder a call later would only add tokens).
 */
export const MIN_REMINDER_GAP = 4
/** After a ctx_reduce call the agent is managing context: no reminders for this many passes. */
export const SUPPRESS_AFTER_REDUCE_PASSES = 8


export type NudgePlan = { decision: NudgeDecision; reclaimableTokens: number; placements: Placement[] }

/**
 * Decides the reminders of this pass (seed: "Read the nudge bands"). Reminders are only ever added to the new
 * tail: channel 1 is appended to the newest finished tool result of the newest message, channel 2 is a hidden steer
 * message after the newest message, so an earlier prompt stays a byte prefix. Quiet for agents without ctx_reduce,
 * while the agent has drops queued, and for a few passes after it called ctx_reduce; otherwise one at a time
 * (`MIN_REMINDER_GAP`), repeated on a cadence that quickens with the level, and as soon as the gap allows when the
 * level rises. The reminders of one epoch (they stay
 * until the next execute pass) never hold more than `budgetTokens`: one that would go over is not placed (the steer
 * message, placed once, goes first).
 */
export function planNudge(options: {
  view: LiveView
  newestToolPartId: string | null
  newestMessageId: string | null
  applied: AppliedState
  queued: ReadonlySet<number>
  pass: number
  usagePercent: number
  /** The usable window (the reminder floors scale with it) and the execute threshold (the level follows usage too). */
  usableTokens: number
  thresholdPercent: number
  tagsVisible: boolean
  /** The most the epoch's reminders may hold, in tokens (`reminderBudgetTokens` of the window). */
  budgetTokens: number
  count: (text: string) => number
  /** The session's reduce caches (what is reclaimable in the view was most likely worked out for its measure). */
  caches: ReduceCaches
}): NudgePlan {
  const { view, applied, queued, pass, caches } = options
  const candidates = reclaimableItems(view, queued, caches)
  const reclaimableTokens = reclaimableTokensOf(view, queued, caches)
  const decision = nudgeFor({
    liveTailTokens: view.liveTokens,
    reclaimableTokens,
    usableTokens: options.usableTokens,
    usagePercent: options.usagePercent,
    thresholdPercent: options.thresholdPercent,
  })
  const none: NudgePlan = { decision, reclaimableTokens, placements: [] }
  if (!options.tagsVisible || decision.level === "quiet" || queued.size > 0) return none
  if (applied.lastReducePass !== null && pass - applied.lastReducePass < SUPPRESS_AFTER_REDUCE_PASSES) return none

  const placements: Placement[] = []
  const last = applied.lastNudgeLevel as NudgeLevel | null
  const since = applied.lastNudgePass === null ? Number.POSITIVE_INFINITY : pass - applied.lastNudgePass
  const due =
    since >= NUDGE_INTERVAL[decision.level] ||
    (since >= MIN_REMINDER_GAP && NUDGE_RANK[decision.level] > NUDGE_RANK[last ?? "quiet"])
  let spent = applied.placements.reduce((sum, placement) => sum + options.count(placement.text), 0)
  const fits = (text: string): boolean => {
    const tokens = options.count(text)
    if (spent + tokens > options.budgetTokens) return false
    spent += tokens
    return true
  }
  const steerPlaced = applied.placements.some((placement) => placement.kind === "steer")
  // The texts are written only for a reminder that may be placed (most passes place none); the steer is weighed first.
  const steerAnchor = decision.channelTwo && !steerPlaced ? options.newestMessageId : null
  const steer = steerAnchor !== null ? steerText({ candidates, reclaimableTokens, usagePercent: options.usagePercent }) : null
  const steerFits = steer !== null && fits(steer)
  if (due && options.newestToolPartId) {
    const text = reminderText({ decision, candidates, reclaimableTokens, usagePercent: options.usagePercent })
    if (fits(text)) placements.push({ kind: "nudge", anchorId: options.newestToolPartId, level: decision.level, text, placedPass: pass })
  }
  if (steerFits && steer !== null && steerAnchor) {
    placements.push({ kind: "steer", anchorId: steerAnchor, level: "ceiling", text: steer, placedPass: pass })
  }
  return { ...none, placements }
}

const OPENINGS: Record<Exclude<NudgeLevel, "quiet">, string> = {
  gentle: "Some older tool output could be dropped.",
  firm: "A large share of the context is older tool output you could drop.",
  urgent: "Most of the context is older tool output: drop what you no longer need now.",
}

function reminderText(options: {
  decision: NudgeDecision
  candidates: readonly LiveItem[]
  reclaimableTokens: number
  usagePercent: number
}): string {
  const { decision, candidates, reclaimableTokens } = options
  const level = decision.level === "quiet" ? "gentle" : decision.level
  return (
    `<system-reminder>magic-context: ${OPENINGS[level]} ${Math.round(options.usagePercent)}% of the window is in use; ` +
    `${kilo(reclaimableTokens)} tokens (${Math.round(decision.share * 100)}% of the conversation) are finished tool ` +
    `output. Drop spent outputs with ctx_reduce ${REDUCE_ALONGSIDE}, largest first: ` +
    `${largest(candidates)}. Example: ctx_reduce(drop="${suggestion(candidates)}").</system-reminder>`
  )
}

function steerText(options: { candidates: readonly LiveItem[]; reclaimableTokens: number; usagePercent: number }): string {
  return (
    `<system-reminder>magic-context: the context window is ${Math.round(options.usagePercent)}% full and ` +
    `${kilo(options.reclaimableTokens)} tokens of it are old tool output. Call ctx_reduce for the outputs you are ` +
    `done with (largest: ${largest(options.candidates)}) ${REDUCE_ALONGSIDE}.</system-reminder>`
  )
}

function largest(candidates: readonly LiveItem[]): string {
  return topFive(candidates)
    .map((item) => `§${item.tag.tag}§ ${item.tag.tool ?? "tool"} (${kilo(item.contentTokens)})`)
    .join(", ")
}

function suggestion(candidates: readonly LiveItem[]): string {
  return compactRanges(topFive(candidates).map((item) => item.tag.tag))
}

/** The five largest outputs, largest first (the lower tag first among equals), found in one walk. */
function topFive(candidates: readonly LiveItem[]): LiveItem[] {
  const before = (a: LiveItem, b: LiveItem): boolean => a.contentTokens > b.contentTokens || (a.contentTokens === b.contentTokens && a.tag.tag < b.tag.tag)
  const top: LiveItem[] = []
  for (const item of candidates) {
    if (top.length === 5 && !before(item, top[4] as LiveItem)) continue
    let at = Math.min(top.length, 4)
    while (at > 0 && before(item, top[at - 1] as LiveItem)) at -= 1
    top.splice(at, 0, item)
    if (top.length > 5) top.pop()
  }
  return top
}

function kilo(tokens: number): string {
  return tokens >= 1000 ? `${(tokens / 1000).toFixed(1)}k` : String(tokens)
}
