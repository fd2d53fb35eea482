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
import {
  cancelOperations,
  insertPlacement,
  markOperationsApplied,
  markTagsDropped,
  saveAppliedState,
} from "../store/applied-state-repository.js"
import type { Database } from "../store/driver.js"
import { recordPass, type PassTrigger } from "../store/pass-repository.js"
import type { TokenCounter } from "../tokens/token-counter.js"
import { contentHash } from "../transcript/content-hash.js"
import type { HostMessage } from "../transcript/host-message.js"
import { decidePass, type PassDecision } from "./decide-pass.js"
import { estimateFreedTokens } from "./estimate-freed-tokens.js"
import type { HistoryPlanner } from "./history-planner.js"
import { ingestMessages } from "./ingest-messages.js"
import type { DropReason, SessionState } from "../session/session-state.js"

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
  const { db, state, messages, counter, clock, trigger, tagsVisible, window, now } = options
  const started = clock.mark()
  const startedAt = clock.now()
  const main = trigger !== "compaction"
  const seq = state.nextPass
  state.nextPass += 1

  const plan = ingestMessages({ db, state, messages, counter, now: startedAt, pass: seq })
  // Changes to the applied state outside the execute step (calibration, the drain, reminders) are saved at the end.
  const appliedAtStart = state.applied
  if (main) calibrate(state, messages)
  // Which messages are unchanged since the last pass (their items, edits and serialization are reused).
  beginPass(state.renderMemo, messages)

  const markerCounts = new Map<string, number>()
  const count = (text: string): number => {
    const known = markerCounts.get(text)
    if (known !== undefined) return known
    const tokens = counter.count(text)
    markerCounts.set(text, tokens)
    return tokens
  }
  let view = buildLiveView({ messages, state, protectedTokens: window.protectedTokens, memo: state.renderMemo })
  const measure = (currentView: LiveView, measured: SessionState = state): Breakdown => {
    const reclaimableTags = new Set(reclaimableItems(currentView, new Set(state.queued.keys())).map((item) => item.tag.tag))
    return measurePrompt({
      messages,
      state: measured,
      view: currentView,
      tagsVisible,
      placements: state.applied.placements,
      fixedTokens: options.fixedTokens,
      reclaimableTags,
      count,
      memo: state.renderMemo,
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

  const dropped: number[] = []
  if (decided.decision === "execute") {
    const drops = new Map<number, { tag: number; reason: DropReason; supersededBy: number | null }>()
    if (decided.applyQueued) for (const drop of landable) drops.set(drop.tag, { tag: drop.tag, reason: "reduce", supersededBy: null })
    if (decided.reclaim) {
      for (const tag of planReclaim({ view, mode: decided.reclaim, boundarySeq: state.applied.boundarySeq })) {
        if (!drops.has(tag)) drops.set(tag, { tag, reason: "reclaim", supersededBy: null })
      }
    }
    if (decided.applyQueued) for (const drop of smart) if (!drops.has(drop.tag)) drops.set(drop.tag, drop)
    const landedOperations = decided.applyQueued ? landable.map((drop) => drop.operationId) : []
    // Queued drops whose material left the context (folded, or summarized by the host) can never land.
    const stale = [...state.queued.values()].filter((drop) => !view.byTag.has(drop.tag))
    const nextApplied = {
      ...state.applied,
      epoch: state.applied.epoch + 1,
      lastExecutePass: seq,
      boundarySeq: view.newestSeq,
      drain: drain.drain,
      history: ready ? { foldedThroughSeq: ready.foldThroughSeq, text: ready.text, tokens: ready.tokens } : state.applied.history,
      placements: [],
    }
    // Store first; memory follows only once the transaction committed.
    db.transaction(() => {
      markTagsDropped(db, state.sessionId, [...drops.values()], seq)
      markOperationsApplied(db, landedOperations, seq)
      cancelOperations(db, stale.map((drop) => drop.operationId), "no longer in the context")
      saveAppliedState(db, state.sessionId, nextApplied, startedAt)
    })
    for (const drop of stale) state.queued.delete(drop.tag)
    for (const drop of drops.values()) {
      const tag = state.tagsByNumber.get(drop.tag)
      if (!tag) continue
      tag.status = "dropped"
      tag.droppedReason = drop.reason
      tag.supersededBy = drop.supersededBy
      dropped.push(drop.tag)
    }
    if (decided.applyQueued) for (const drop of landable) state.queued.delete(drop.tag)
    state.applied = nextApplied
    dropped.sort((a, b) => a - b)
    if (ready) view = buildLiveView({ messages, state, protectedTokens: window.protectedTokens, memo: state.renderMemo })
  } else if (main && drain.transition !== "idle" && drain.transition !== "continued") {
    state.applied = { ...state.applied, drain: drain.drain }
  }

  let nudge: PassResult["nudge"] = null
  if (main) {
    const newest = messages[messages.length - 1]
    // A reminder goes only to a message the previous prompt did not have (or into a prompt that changes anyway),
    // so it never rewrites what the provider has cached.
    const placeable =
      newest !== undefined &&
      (decided.decision === "execute" || (state.previousMessageIds !== null && !state.previousMessageIds.has(newest.info.id)))
    const newestTool =
      placeable && newest.info.role === "assistant"
        ? [...newest.parts].reverse().find((part) => part.type === "tool" && part.state.status === "completed")
        : undefined
    const planned = planNudge({
      view,
      newestToolPartId: newestTool?.id ?? null,
      newestMessageId: placeable ? newest.info.id : null,
      applied: state.applied,
      queued: new Set(state.queued.keys()),
      pass: seq,
      usagePercent: usagePercent(usageBefore, window.usableTokens),
      tagsVisible,
      budgetTokens: window.reminderBudgetTokens,
      count,
    })
    if (planned.placements.length > 0) {
      state.applied = {
        ...state.applied,
        placements: [...state.applied.placements, ...planned.placements],
        lastNudgePass: seq,
        lastNudgeLevel: planned.decision.level,
      }
      db.transaction(() => {
        for (const placement of planned.placements) insertPlacement(db, state.sessionId, state.applied.epoch, placement)
      })
      nudge = { level: planned.decision.level, channel: planned.placements.some((placement) => placement.kind === "steer") ? 2 : 1 }
    }
  }
  if (state.applied !== appliedAtStart) saveAppliedState(db, state.sessionId, state.applied, startedAt)

  const edits = renderPrompt({ messages, state, tagsVisible, placements: state.applied.placements, memo: state.renderMemo })
  // A replay pass that placed nothing renders the state it started from: measuring again would give the same.
  const after = decided.decision === "execute" || nudge !== null ? measure(view) : before
  const usageAfter = estimateUsage({ promptTokens: after.total, calibrationTokens: state.applied.calibrationTokens })
  const previous = main ? state.previousPrompt : null
  const serialized = serializeRenderedChunks(messages, edits, state.previousPrompt, state.renderMemo)
  const divergence = previous === null ? null : promptDivergence(previous, serialized)
  // What the provider bills for this request, as far as our counts tell: the prefix shared with the previous request
  // read from the cache (while it is warm), the rest uncached or written.
  const previousEstimate = state.recentEstimates[state.recentEstimates.length - 1]?.estimate ?? 0
  const billed = main
    ? billedPrompt({
        promptTokens: usageAfter,
        sharedPrefixTokens: sharedPrefixTokens({
          previousTokens: previous === null ? 0 : previousEstimate + state.applied.calibrationTokens,
          previousBytes: previous === null ? 0 : previous.totalBytes,
          divergence,
        }),
        cacheWarm: !cold,
        prices: window.prices,
      })
    : null
  if (main) {
    state.previousPrompt = serialized
    state.previousMessageIds = new Set(messages.map((message) => message.info.id))
    state.recentEstimates.push({ seq, startedAt: now, estimate: after.total })
    if (state.recentEstimates.length > KEEP_ESTIMATES) state.recentEstimates.shift()
  }

  const durationMs = clock.elapsedMs(started)
  const newTags = plan.tags.map((tag) => tag.tag)
  const radius = divergence === null || previous === null ? null : previous.totalBytes - divergence
  const passId = recordPass(db, {
    sessionId: state.sessionId,
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
    renderedHash: decided.decision === "execute" ? contentHash(joinPrompt(serialized)) : null,
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
  })
  if (decided.decision === "execute" && ready && planner) {
    planner.commit({ pass: seq, passId, pressure: percentBefore, firstDivergence: divergence, radius, now })
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
    view,
  }
}

/**
 * Learns the gap between our estimate and the provider's report: when the newest assistant message carries a
 * usage report we have not used yet, the estimate of the pass that sent its request is compared with it. OpenCode
 * creates a step's assistant message just before it runs the transform for that step, so the pass that sent the
 * request is the first one that started at or after the message was created (a replayed transcript gives both the
 * same time).
 */
function calibrate(state: SessionState, messages: readonly HostMessage[]): void {
  for (let index = messages.length - 1; index >= 0; index -= 1) {
    const info = messages[index]?.info
    if (!info || info.role !== "assistant") continue
    const reported = reportedPromptTokens(info.tokens)
    if (reported <= 0) return
    if (info.id === state.applied.calibratedMessageId) return
    const sent = state.recentEstimates.find((estimate) => estimate.startedAt >= info.time.created)
    if (!sent) return
    state.applied = { ...state.applied, calibrationTokens: reported - sent.estimate, calibratedMessageId: info.id }
    return
  }
}

/** True when the provider's prompt cache has expired (no request within the TTL), or there was none yet. */
function cacheExpired(messages: readonly HostMessage[], now: number, ttlMs: number): boolean {
  for (let index = messages.length - 1; index >= 0; index -= 1) {
    const info = messages[index]?.info
    if (info?.role === "assistant") return now - info.time.created > ttlMs
  }
  return true
}
