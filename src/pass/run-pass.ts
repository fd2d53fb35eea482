import { classifyBand, EMERGENCY_PERCENT, usagePercent, type Band } from "../pressure/bands.js"
import { nextDrainState } from "../pressure/drain-latch.js"
import { minimumFreedTokens } from "../pressure/minimum-freed.js"
import { estimateUsage, reportedPromptTokens } from "../pressure/estimate-usage.js"
import { billedPrompt, promptCost, sharedPrefixTokens } from "../pressure/cost-model.js"
import { executePays } from "../pressure/execute-pays.js"
import type { WindowSettings } from "../pressure/model-window.js"
import { planNudge } from "../pressure/plan-nudge.js"
import { growthPerCall } from "../pressure/prompt-growth.js"
import type { NudgeLevel } from "../pressure/nudge-band.js"
import { buildLiveView, type LiveView } from "../session/live-view.js"
import { planReclaim, reclaimableItems, type ReclaimMode } from "../reduce/plan-reclaim.js"
import { planSmartDrops } from "../reduce/plan-smart-drops.js"
import type { Edit } from "../session/edit.js"
import { measurePrompt, type Breakdown } from "../render/measure-prompt.js"
import { beginPass } from "../session/render-memo.js"
import { renderPrompt } from "../render/render-prompt.js"
import { joinPrompt, promptDivergence, serializeRenderedChunks } from "../session/serialize-prompt.js"
import type { Database } from "../store/driver.js"
import type { PassTrigger } from "../store/pass-repository.js"
import type { TokenCounter } from "../tokens/token-counter.js"
import { contentHash } from "../transcript/content-hash.js"
import type { HostMessage } from "../transcript/host-message.js"
import { decidePass, type PassDecision } from "./decide-pass.js"
import { estimateFreedTokens } from "./estimate-freed-tokens.js"
import type { HistoryPlanner } from "./history-planner.js"
import { ingestMessages } from "./ingest-messages.js"
import type { AppliedState, Placement, SessionState } from "../session/session-state.js"
import { commitPass } from "./commit-pass.js"
import { planExecution, plannedState } from "./plan-execution.js"

export type Clock = { now(): number; elapsedMs(since: number): number; mark(): number }

export type PassOptions = {
  db: Database
  state: SessionState
  /** The host's messages. Read only: the caller applies the returned edits. */
  messages: readonly HostMessage[]
  counter: TokenCounter
  clock: Clock
  trigger: PassTrigger
  /** Whether the agent sees `§N§` tags, reduce guidance and reminders (it has the ctx_reduce tool). */
  tagsVisible: boolean
  window: WindowSettings
  /** Tokens of the system prompt and tool definitions. */
  fixedTokens: number
  /** When this request goes out (epoch ms): the prompt cache's age and the drain latch are measured against it. */
  now: number
  smartDrops: boolean
  /** History ready to fold in, given directly (tests); ignored when a `history` planner is given. */
  readyHistory?: ReadyHistory | null
  /** The session's historian side: cuts compartments and prepares the history an execute pass folds in. */
  history?: HistoryPlanner | null
}

/** Compartment history ready to replace the settled conversation up to `foldThroughSeq`. */
export type ReadyHistory = { foldThroughSeq: number; text: string; tokens: number }

export type PassResult = {
  seq: number
  edits: Edit[]
  decision: PassDecision["decision"]
  reason: PassDecision["reason"]
  band: Band
  usageBefore: number
  usageAfter: number
  /** Where the tokens went before the pass applied anything (the applied state it started from). */
  breakdownBefore: Breakdown
  /** Where the tokens of the prompt sent go. */
  breakdown: Breakdown
  /** Tags whose drop landed in this pass. */
  dropped: number[]
  nudge: { level: NudgeLevel; channel: 1 | 2 } | null
  prefixChanged: boolean
  firstDivergence: number | null
  newTags: number[]
  newParts: number
  durationMs: number
  /** The live view after the pass (ctx_reduce validates against it). */
  view: LiveView
}

const KEEP_ESTIMATES = 32

/**
 * One pass (seed: "Where a pass lands"): store what is new (raw first, one transaction), measure usage against
 * the usable window, decide execute or replay, apply all due work together on an execute pass (queued drops,
 * reclaim, smart drops: a new epoch), place reminders in the new tail, render, check the cache contract against
 * the previous prompt, and record the pass with its decision.
 */
export function runPass(options: PassOptions): PassResult {
  const { db, messages, counter, clock, trigger, tagsVisible, window, now } = options
  // The session's own state changes twice: ingest (raw first, its own transaction) and, once the pass committed,
  // everything else (`adopt`). In between, `state` is the session as this pass sees it, and plans are values.
  const session = options.state
  const started = clock.mark()
  const startedAt = clock.now()
  const main = trigger !== "compaction"
  const seq = session.nextPass
  session.nextPass += 1

  const plan = ingestMessages({ db, state: session, messages, counter, now: startedAt, pass: seq })
  const state: SessionState = main ? calibrated(session, messages) : session
  // Which messages are unchanged since the last pass (their items, edits and serialization are reused).
  beginPass(session.renderMemo, messages)

  const markerCounts = new Map<string, number>()
  const count = (text: string): number => {
    const known = markerCounts.get(text)
    if (known !== undefined) return known
    const tokens = counter.count(text)
    markerCounts.set(text, tokens)
    return tokens
  }
  const view = buildLiveView({ messages, state, protectedTokens: window.protectedTokens, memo: session.renderMemo })
  const measure = (currentView: LiveView, measured: SessionState = state): Breakdown => {
    const reclaimableTags = new Set(reclaimableItems(currentView, new Set(measured.queued.keys())).map((item) => item.tag.tag))
    return measurePrompt({
      messages,
      state: measured,
      view: currentView,
      tagsVisible,
      placements: measured.applied.placements,
      fixedTokens: options.fixedTokens,
      reclaimableTags,
      count,
      memo: session.renderMemo,
    })
  }
  const before = measure(view)
  const usageBefore = estimateUsage({ promptTokens: before.total, calibrationTokens: state.applied.calibrationTokens })
  const percentBefore = usagePercent(usageBefore, window.usableTokens)
  const band = classifyBand({ usagePercent: percentBefore, thresholdPercent: window.thresholdPercent })
  const drain = nextDrainState({ drain: state.applied.drain, band, usagePercent: percentBefore, thresholdPercent: window.thresholdPercent, now })

  const protectionsYield = band === "emergency"
  const landable = [...state.queued.values()].filter((drop) => {
    const item = view.byTag.get(drop.tag)
    return item !== undefined && item.final && (!item.protected || protectionsYield)
  })
  const smart = options.smartDrops ? planSmartDrops(view) : []
  // History may fold only settled conversation: never a message of the protected window.
  // (The lowest sequence in the window: after the host's compaction its kept tail follows the summary.)
  const protectedSeq = view.messages
    .slice(view.protectedFrom)
    .map((message) => state.messageSeq.get(message.info.id) ?? 0)
    .reduce((lowest, seq) => Math.min(lowest, seq), Number.POSITIVE_INFINITY)
  // ... nor the newest message (even with no protected window at all, the prompt keeps its tail).
  const newestSeq = view.newestSeq > 0 ? view.newestSeq : Number.POSITIVE_INFINITY
  // What stays of the prompt once history replaces the settled conversation: the fixed prompt and the protected tail
  // (reminders included), less what an emergency pass takes from that tail (protections yield there), in the units
  // usage is measured in. History gets the room this leaves below the landing and ceiling lines.
  const yielded = protectionsYield
    ? [...new Set([...planReclaim({ view, mode: "emergency", boundarySeq: state.applied.boundarySeq }), ...landable.map((drop) => drop.tag)])]
        .map((tag) => view.byTag.get(tag))
        .reduce((sum, item) => sum + (item?.protected ? item.contentTokens + item.callTokens : 0), 0)
    : 0
  const staying = state.applied.calibrationTokens + before.fixed + before.protected - yielded
  // The cost rule's terms (execute-pays.ts). A break re-sends what follows the history's stable episodes: the fixed
  // prompt and the history stay a prefix (stable-first), the rest is sent again.
  const cold = cacheExpired(messages, now, window.cacheTtlMs)
  const weigh = (freedTokens: number, dropTokens: number) =>
    executePays({
      freedTokens,
      rewrittenTokens: before.total - before.fixed - before.history,
      callsSinceExecute: seq - (state.applied.lastExecutePass ?? 0),
      dropTokens,
      promptTokens: usageBefore,
      thresholdTokens: (window.usableTokens * window.thresholdPercent) / 100,
      growthPerCall: growthPerCall(state.recentEstimates),
      cacheCold: cold,
      prices: window.prices,
    })
  // Below the threshold a fold is prepared only when it could pay: what its compartments' FULL tiers save on their
  // source (as cut up to the previous pass) bounds what it frees. It must pay at a warm cache's price: a cold cache
  // lets queued drops land free (cache-expired), but an early fold trades detail for cost, and a break that happens to
  // be free is no reason.
  const planner = options.history ?? null
  const foldMayPay = main && band === "below" && !drain.drain.active && !cold && planner !== null && weigh(planner.quietFoldGain(), 0).pays
  const offered = planner
    ? main
      ? planner.prepare({
          messages,
          view,
          state,
          pass: seq,
          now,
          fold: percentBefore >= window.thresholdPercent || foldMayPay,
          budgetTokens: window.historyBudgetTokens,
          roomTokens: window.landingTokens - staying,
          // In the emergency band (the prompt is about to overflow; protections yield too) floors that would keep the
          // prompt in the emergency band yield, down to the ceiling line. Elsewhere, and when held floors leave the
          // prompt below the emergency line, floors win over the budget and the landing line.
          ...(band === "emergency"
            ? {
                ceilingTokens: window.ceilingTokens - staying,
                overflowTokens: Math.round((window.usableTokens * EMERGENCY_PERCENT) / 100) - staying,
              }
            : {}),
          pinBudgetTokens: window.pinBudgetTokens,
        })
      : null
    : (options.readyHistory ?? null)
  const foldable = offered && offered.foldThroughSeq < Math.min(protectedSeq, newestSeq) ? offered : null
  // What these tags' outputs and calls hold, as reclaim and drops free them.
  const tagTokens = (tags: readonly number[]): number =>
    tags.reduce((sum, tag) => {
      const item = view.byTag.get(tag)
      return sum + (item ? item.contentTokens + item.callTokens : 0)
    }, 0)
  const reclaimTokens = (mode: ReclaimMode): number => tagTokens(planReclaim({ view, mode, boundarySeq: state.applied.boundarySeq }))
  // What the pass would free is measured only where the decision reads it: below the force band, during the drain or
  // when a fold or queued drops are due.
  const belowForce = band === "execute" || band === "below"
  const freedRead = main && belowForce && (drain.drain.active || foldable !== null || landable.length > 0)
  const freedBy = (history: ReadyHistory | null): number =>
    estimateFreedTokens({
      messages,
      state,
      before,
      ready: history,
      protectedTokens: window.protectedTokens,
      landable: landable.map((drop) => drop.tag),
      smart: smart.map((drop) => drop.tag),
      // A drain pass reclaims in force mode; any other in age mode.
      reclaim: drain.drain.active ? "force" : "age",
      measure,
    })
  const freedWithFold = freedRead ? freedBy(foldable) : 0
  // A fold the cost rule prepared below the threshold goes only where it frees more than the rest of the work alone
  // (its FULL episodes can outweigh what they replace): the queued drops then land without it.
  const freedAlone = foldMayPay && foldable !== null && landable.length > 0 ? freedBy(null) : Number.NEGATIVE_INFINITY
  const ready = freedAlone >= freedWithFold ? null : foldable
  const freedTokens = Math.max(freedWithFold, freedAlone)
  // The cost rule weighs the due work outside the drain (which runs on its own terms).
  const estimate =
    freedRead && !drain.drain.active
      ? weigh(freedTokens, tagTokens(landable.map((drop) => drop.tag)))
      : null
  const decided: PassDecision = main
    ? decidePass({
        band,
        drainActive: drain.drain.active,
        cacheExpired: cold,
        midTool: view.midTool,
        work: {
          landableDrops: landable.length,
          readyHistory: ready ? 1 : 0,
          reclaim: { age: reclaimTokens("age"), force: reclaimTokens("force"), emergency: reclaimTokens("emergency") },
          smartDrops: smart.length,
          freedTokens,
        },
        pays: estimate?.pays ?? false,
        minimumFreed: minimumFreedTokens(window.usableTokens),
      })
    : { decision: "replay", reason: "nothing-due", reclaim: null, applyQueued: false }

  // The execute pass as a plan, and the session as it stands once the plan is applied.
  const execution =
    decided.decision === "execute"
      ? planExecution({ state, view, seq, applyQueued: decided.applyQueued, reclaim: decided.reclaim, landable, smart, drain: drain.drain, ready })
      : null
  let planned: SessionState = execution ? plannedState(state, execution, landable, decided.applyQueued) : state
  if (!execution && main && drain.transition !== "idle" && drain.transition !== "continued") {
    planned = { ...planned, applied: { ...planned.applied, drain: drain.drain } }
  }
  const plannedView = execution ? buildLiveView({ messages, state: planned, protectedTokens: window.protectedTokens, memo: session.renderMemo }) : view

  const reminder = main ? planReminder({ messages, session, planned, view: plannedView, seq, executes: execution !== null, usageBefore, window, tagsVisible, count }) : null
  if (reminder) planned = { ...planned, applied: reminder.applied }
  const nudge = reminder?.nudge ?? null

  const edits = renderPrompt({ messages, state: planned, tagsVisible, placements: planned.applied.placements, memo: session.renderMemo })
  // A replay pass that placed nothing renders the state it started from: measuring again would give the same.
  const after = execution !== null || nudge !== null ? measure(plannedView, planned) : before
  const usageAfter = estimateUsage({ promptTokens: after.total, calibrationTokens: planned.applied.calibrationTokens })
  const previous = main ? session.previousPrompt : null
  const serialized = serializeRenderedChunks(messages, edits, session.previousPrompt, session.renderMemo)
  const divergence = previous === null ? null : promptDivergence(previous, serialized)
  // What the provider bills for this request, as far as our counts tell: the prefix shared with the previous request
  // read from the cache (while it is warm), the rest uncached or written.
  const previousEstimate = session.recentEstimates[session.recentEstimates.length - 1]?.estimate ?? 0
  const billed = main
    ? billedPrompt({
        promptTokens: usageAfter,
        sharedPrefixTokens: sharedPrefixTokens({
          previousTokens: previous === null ? 0 : previousEstimate + planned.applied.calibrationTokens,
          previousBytes: previous === null ? 0 : previous.totalBytes,
          divergence,
        }),
        cacheWarm: !cold,
        prices: window.prices,
      })
    : null

  const dropped = (execution?.tags ?? []).map((tag) => tag.tag).sort((a, b) => a - b)
  const durationMs = clock.elapsedMs(started)
  const newTags = plan.tags.map((tag) => tag.tag)
  const radius = divergence === null || previous === null ? null : previous.totalBytes - divergence
  const folds = execution !== null && ready !== null && planner !== null
  commitPass({
    db,
    sessionId: session.sessionId,
    seq,
    execution,
    applied: planned.applied !== session.applied ? planned.applied : null,
    placements: reminder?.placements ?? [],
    now: startedAt,
    history: folds ? { planner, pressure: percentBefore, firstDivergence: divergence, radius, now } : null,
    record: {
      sessionId: session.sessionId,
      seq,
      startedAt,
      durationMs,
      trigger,
      decision: decided.decision,
      band,
      usageTokens: usageBefore,
      windowTokens: window.usableTokens,
      messageCount: messages.length,
      newParts: plan.parts.length,
      newTags: newTags.length,
      renderedTokens: usageAfter,
      // The identity of an epoch's prompt; hashing ~1 MB on every pass would cost more than the rest of a replay pass.
      renderedHash: execution ? contentHash(joinPrompt(serialized)) : null,
      firstDivergence: divergence,
      detail: {
        reason: decided.reason,
        breakdown: after,
        // Our own estimate for this request (before calibration): a restarted process calibrates against it.
        estimate: main ? after.total : null,
        dropped,
        nudge,
        newTags,
        drain: drain.transition,
        cost: estimate,
        billed: billed ? { ...billed, cost: promptCost(billed, window.prices), readPrice: window.prices.cachedRead } : null,
      },
      error: null,
    },
  })

  // The store holds the pass: memory follows.
  session.applied = planned.applied
  session.tagsByPart = planned.tagsByPart
  session.tagsByNumber = planned.tagsByNumber
  session.queued = planned.queued
  if (folds) planner.settle()
  if (main) {
    session.previousPrompt = serialized
    session.previousMessageIds = new Set(messages.map((message) => message.info.id))
    session.recentEstimates.push({ seq, startedAt: now, estimate: after.total })
    if (session.recentEstimates.length > KEEP_ESTIMATES) session.recentEstimates.shift()
  }
  return {
    seq,
    edits,
    decision: decided.decision,
    reason: decided.reason,
    band,
    usageBefore,
    usageAfter,
    breakdownBefore: before,
    breakdown: after,
    dropped,
    nudge,
    prefixChanged: divergence !== null,
    firstDivergence: divergence,
    newTags,
    newParts: plan.parts.length,
    durationMs,
    view: plannedView,
  }
}

/**
 * Where a reminder goes and the applied state with it (seed: "Nudging"): only into a message the previous prompt did
 * not have (or into a prompt that changes anyway), so it never rewrites what the provider has cached; on the newest
 * finished tool output when there is one (channel 1), else as a steer message (channel 2). Null when none is due.
 */
function planReminder(options: {
  messages: readonly HostMessage[]
  session: SessionState
  planned: SessionState
  view: LiveView
  seq: number
  executes: boolean
  usageBefore: number
  window: WindowSettings
  tagsVisible: boolean
  count: (text: string) => number
}): { placements: Placement[]; applied: AppliedState; nudge: NonNullable<PassResult["nudge"]> } | null {
  const { messages, session, planned, seq } = options
  const newest = messages[messages.length - 1]
  const placeable =
    newest !== undefined &&
    (options.executes || (session.previousMessageIds !== null && !session.previousMessageIds.has(newest.info.id)))
  const newestTool =
    placeable && newest.info.role === "assistant"
      ? [...newest.parts].reverse().find((part) => part.type === "tool" && part.state.status === "completed")
      : undefined
  const reminder = planNudge({
    view: options.view,
    newestToolPartId: newestTool?.id ?? null,
    newestMessageId: placeable ? newest.info.id : null,
    applied: planned.applied,
    queued: new Set(planned.queued.keys()),
    pass: seq,
    usagePercent: usagePercent(options.usageBefore, options.window.usableTokens),
    tagsVisible: options.tagsVisible,
    budgetTokens: options.window.reminderBudgetTokens,
    count: options.count,
  })
  if (reminder.placements.length === 0) return null
  return {
    placements: reminder.placements,
    applied: {
      ...planned.applied,
      placements: [...planned.applied.placements, ...reminder.placements],
      lastNudgePass: seq,
      lastNudgeLevel: reminder.decision.level,
    },
    nudge: { level: reminder.decision.level, channel: reminder.placements.some((placement) => placement.kind === "steer") ? 2 : 1 },
  }
}

/**
 * Learns the gap between our estimate and the provider's report: when the newest assistant message carries a
 * usage report we have not used yet, the estimate of the pass that sent its request is compared with it. OpenCode
 * creates a step's assistant message just before it runs the transform for that step, so the pass that sent the
 * request is the first one that started at or after the message was created (a replayed transcript gives both the
 * same time).
 */
function calibrated(session: SessionState, messages: readonly HostMessage[]): SessionState {
  for (let index = messages.length - 1; index >= 0; index -= 1) {
    const info = messages[index]?.info
    if (!info || info.role !== "assistant") continue
    const reported = reportedPromptTokens(info.tokens)
    if (reported <= 0) return session
    if (info.id === session.applied.calibratedMessageId) return session
    const sent = session.recentEstimates.find((estimate) => estimate.startedAt >= info.time.created)
    if (!sent) return session
    return { ...session, applied: { ...session.applied, calibrationTokens: reported - sent.estimate, calibratedMessageId: info.id } }
  }
  return session
}

/** True when the provider's prompt cache has expired (no request within the TTL), or there was none yet. */
function cacheExpired(messages: readonly HostMessage[], now: number, ttlMs: number): boolean {
  for (let index = messages.length - 1; index >= 0; index -= 1) {
    const info = messages[index]?.info
    if (info?.role === "assistant") return now - info.time.created > ttlMs
  }
  return true
}
