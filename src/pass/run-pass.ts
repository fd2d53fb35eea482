/*
 * Over 300 lines: runPass is one function, the pass's steps in order (ingest, decide, apply, render, record) over the
 * same locals; the session (session.ts) holds what it runs on, and each step it calls lives in a file of its own.
 */
import { classifyBand, usagePercent, type Band } from "../pressure/bands.js"
import { billedPrompt, promptCost, sharedPrefixTokens } from "../pressure/cost-model.js"
import { nextDrainState } from "../pressure/drain-latch.js"
import { estimateUsage } from "../pressure/estimate-usage.js"
import type { WindowSettings } from "../pressure/model-window.js"
import { reclaimableItems } from "../reduce/plan-reclaim.js"
import { measurePrompt, type Breakdown } from "../render/measure-prompt.js"
import { renderPromptPlaced } from "../render/render-prompt.js"
import type { Edit } from "../session/edit.js"
import type { RenderedList } from "../session/apply-edits.js"
import { buildLiveView, type LiveView } from "../session/live-view.js"
import { beginPass, endPass } from "../session/message-memo.js"
import { promptDivergence } from "../session/prompt-divergence.js"
import { runningTurn } from "../session/running-turn.js"
import { withheldState } from "../session/withhold-reasoning.js"
import type { ReasoningRule } from "../session/reasoning-rules.js"
import { NOTHING_WITHHELD, reasoningToWithholdNow, turnFence, type WithheldReasoning } from "./pass-reasoning.js"
import { serializeRenderedChunks } from "../session/serialize-prompt.js"
import type { ReadyHistory, SessionState } from "../session/session-state.js"
import type { Database } from "../store/driver.js"
import type { PassRecord, PassTrigger } from "../store/pass-repository.js"
import type { TokenCounter } from "../tokens/token-counter.js"
import { answeredAheadOf } from "../tokens/counted-ahead.js"
import { withRecurringTextCache } from "../tokens/counted-text-cache.js"
import { contentHashOfParts } from "../transcript/content-hash.js"
import type { HostMessage } from "../transcript/host-message.js"
import { calibrated, type ReplyCreated } from "./calibrate.js"
import { commitOrOwe } from "./commit-pass.js"
import type { PassDecision } from "./decide-pass.js"
import { decideWork } from "./decide-work.js"
import { NO_FOLD_GAINS, type HistoryPlanner } from "./history-planner.js"
import { ingestMessages } from "./ingest-messages.js"
import { planExecution, plannedState } from "./plan-execution.js"
import { planReminder, type PlacedReminder } from "./plan-reminder.js"
import type { OwedRecord } from "./owed-record.js"
import type { OwedRows } from "./owed-rows.js"
import type { PassCaches } from "./pass-caches.js"
import type { Clock } from "./system-clock.js"

export type PassOptions = {
  db: Database
  state: SessionState
  /** The session's caches, kept from pass to pass (`createPassCaches`; its memo is the state's). */
  caches: PassCaches
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
  /** When the host creates a request's reply, which carries its usage report (`calibrated`); OpenCode's order by default. */
  replyCreated?: ReplyCreated
  /**
   * The session's owed record: a quiet pass (one that changes nothing but its own record) leaves its record there
   * instead of committing it (`owed-record.ts`), and the shells store it once the pass has returned. Absent: every
   * pass commits its record.
   */
  owed?: OwedRecord
  /**
   * The session's owed raw rows (`owed-rows.ts`; the shells', with `owed`): ingest leaves a call's new rows there, and
   * a pass that commits writes them first in its transaction; a quiet pass leaves them for the settle after it.
   * Absent: ingest writes its rows at once.
   */
  owedRows?: OwedRows
  /**
   * The host asks for manual extended thinking (`thinking.type: "enabled"`), under which a tool loop's last assistant
   * message must start with its thinking block: no band may then take the running loop's thinking. Off: adaptive
   * thinking, or not known.
   */
  loopThinkingRequired?: boolean
  /**
   * The provider rejected the session's last request over its reasoning state: this pass executes and withholds
   * every reasoning part, whatever the rule (the providers' documented way out), so the next request can go through.
   */
  withholdAllReasoning?: boolean
  /**
   * The reasoning rule of the model that made an assistant message (the host resolves it as it resolves the window):
   * a prefix-check model's blocks stay bound to their prefix while another model runs. Absent: the window's rule.
   */
  reasoningRuleOf?: (providerID: string, modelID: string) => ReasoningRule
}


export type PassResult = {
  seq: number
  edits: readonly Edit[]
  /** The messages the pass rendered and its memo's entries of them: `applyRenderedEdits` writes the edits by them. */
  rendered: RenderedList
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
  nudge: PlacedReminder | null
  prefixChanged: boolean
  firstDivergence: number | null
  newTags: number[]
  newParts: number
  durationMs: number
  /** The live view after the pass (ctx_reduce validates against it). */
  view: LiveView
  /** The reasoning this pass took out of the prompt under the provider's prefix check (null: none). */
  reasoning: WithheldReasoning | null
}

const KEEP_ESTIMATES = 32

/**
 * One pass (seed: "Where a pass lands"), as a straight line:
 * 1. see which messages are unchanged (`beginPass`), then ingest: store what is new, raw first, in its own transaction
 *    (`ingestMessages`), or, with `owedRows` (the shells), owe it: written first by the commit of a pass that reduces,
 *    else by the settle after the pass;
 * 2. plan, as values: calibrate, measure usage against the usable
 *    window, weigh the due work and decide execute or replay (`decideWork`), plan an execute pass's drops and new
 *    epoch (`planExecution`), place reminders in the new tail (`planReminder`), render, serialize and check the cache
 *    contract against the previous prompt, price the request;
 * 3. commit: everything decided, with the pass record, in one transaction (`commitPass`); with `owed` (the
 *    shells), a pass that decided nothing but its record leaves that record owed (`owed-record.ts`), and the next
 *    commit, the shell's turn of the loop after the pass, /ctx-status or dispose stores it;
 * 4. memory follows the store.
 * Only the historian writes besides 1 and 3: it stores compartments as soon as they are cut (`planner.cut`, before
 * the decision), or, for a planner with `deferCuts` (the shells' and the replays'), once the pass has returned or when
 * they are next read (a fold of this pass reads them): the same compartments, off the request path.
 */
export function runPass(options: PassOptions): PassResult {
  const { db, messages, counter, clock, trigger, tagsVisible, window, now } = options
  // The session's own state changes twice: at ingest, and once the pass committed. In between, `state` is the session
  // as this pass sees it (calibrated), and everything planned is a value.
  const session = options.state
  const { caches } = options
  const { memo } = caches
  const started = clock.mark()
  const startedAt = clock.now()
  const main = trigger !== "compaction"
  const seq = session.nextPass
  session.nextPass += 1
  // Which messages are unchanged since the last pass (their items, edits and serialization are reused; ingest skips
  // the ones it knows stored whole).
  beginPass(memo, messages)
  const answeredAhead = answeredAheadOf(counter)
  const plan = ingestMessages({ db, state: session, messages, counter, now: startedAt, pass: seq, memo, ...(options.owedRows ? { owe: options.owedRows } : {}) })
  const replyCreated = options.replyCreated ?? "before-pass"
  const state: SessionState = main ? calibrated(session, messages, replyCreated, options.fixedTokens) : session

  // Markers and reminders recur pass after pass: counted once per session.
  const recurringText = withRecurringTextCache(counter, caches.tokens)
  const count = (text: string): number => recurringText.count(text)
  const view = buildLiveView({ messages, state, protectedTokens: window.protectedTokens, memo })
  const measure = (currentView: LiveView, measured: SessionState = state): Breakdown => {
    return measurePrompt({
      messages,
      state: measured,
      view: currentView,
      tagsVisible,
      placements: measured.applied.placements,
      fixedTokens: options.fixedTokens,
      reclaimable: reclaimableItems(currentView, measured.queued, caches.reduce),
      count,
      caches: caches.render,
    })
  }
  const before = measure(view)
  const usageBefore = estimateUsage({ promptTokens: before.total, calibrationTokens: state.applied.calibrationTokens })
  const percentBefore = usagePercent(usageBefore, window.usableTokens)
  const band = classifyBand({ usagePercent: percentBefore, thresholdPercent: window.thresholdPercent })
  const drain = nextDrainState({ drain: state.applied.drain, band, usagePercent: percentBefore, thresholdPercent: window.thresholdPercent, now })

  const cold = cacheExpired(messages, now, window.cacheTtlMs)
  const planner = options.history ?? null
  // What a fold below the threshold could free is judged on the compartments cut before this pass; then the newly
  // settled conversation is cut (the historian's own write: its tiers are stored as soon as they exist, or owed
  // until they are read, with `deferCuts`).
  const foldGains = main && planner ? planner.foldGains() : NO_FOLD_GAINS
  // The running turn, where the provider's rule reads it; where the rule binds all of that turn's reasoning to its
  // calls, nothing of it is cut or folded.
  const rule = window.reasoning
  const turn = rule.bindsRunningTurn || rule.keepsPrefix ? runningTurn(messages) : null
  const fenceSeq = rule.bindsRunningTurn ? turnFence(turn, messages, state) : Number.POSITIVE_INFINITY
  if (main && planner) {
    planner.cut({
      messages,
      view,
      state,
      pass: seq,
      now,
      ...(Number.isFinite(fenceSeq) ? { fenceSeq } : {}),
      ...(rule.signed ? { withoutReasoning: true } : {}),
    })
  }
  // The options it reads, named (a spread of every pass option cost more than the step under Node).
  const { landable, smart, ready, estimate, decided } = decideWork({
    messages,
    window,
    now,
    smartDrops: options.smartDrops,
    history: options.history,
    readyHistory: options.readyHistory,
    loopThinkingRequired: options.loopThinkingRequired,
    withholdAllReasoning: options.withholdAllReasoning,
    caches,
    state,
    view,
    before,
    usageBefore,
    band,
    drain: drain.drain,
    seq,
    main,
    cold,
    foldGains,
    turn,
    fenceSeq,
    measure,
  })

  // The execute pass as a plan, and the session as it stands once the plan is applied.
  const execution =
    decided.decision === "execute"
      ? planExecution({ state, view, seq, applyQueued: decided.applyQueued, reclaim: decided.reclaim, landable, smart: smart(), drain: drain.drain, ready })
      : null
  let planned: SessionState = execution ? plannedState(state, execution) : state
  if (!execution && main && drain.transition !== "idle" && drain.transition !== "continued") {
    planned = { ...planned, applied: { ...planned.applied, drain: drain.drain } }
  }
  let plannedView = execution ? buildLiveView({ messages, state: planned, protectedTokens: window.protectedTokens, memo }) : view

  const reminder = main ? planReminder({ messages, session, planned, view: plannedView, seq, executes: execution !== null, usageBefore, window, tagsVisible, count, caches }) : null
  if (reminder) planned = { ...planned, applied: reminder.applied }
  const nudge = reminder?.nudge ?? null

  const previous = main ? session.previousPrompt : null
  const render = (rendering: SessionState, renderView: LiveView) => {
    const { edits, placed } = renderPromptPlaced({ messages, state: rendering, tagsVisible, placements: rendering.applied.placements, memo, view: renderView, caches: caches.render })
    const serialized = serializeRenderedChunks(messages, edits, session.previousPrompt, memo, placed)
    return { edits, placed, serialized, divergence: previous === null ? null : promptDivergence(previous, serialized, memo) }
  }
  let rendered = render(planned, plannedView)
  // Under a provider's prefix check on thinking, the blocks a change of the prompt invalidates leave it with the change
  // (`pass-reasoning.ts`): an execute pass's change, or one the host made between two replay passes.
  const { withheld, reasoning } = main
    ? reasoningToWithholdNow({
        messages,
        edits: rendered.edits,
        state: planned,
        previous,
        divergence: rendered.divergence,
        executes: execution !== null,
        recovering: execution !== null && options.withholdAllReasoning === true,
        window,
        ruleOf: options.reasoningRuleOf,
        turn,
      })
    : NOTHING_WITHHELD
  if (withheld.length > 0) {
    planned = withheldState(planned, withheld)
    plannedView = buildLiveView({ messages, state: planned, protectedTokens: window.protectedTokens, memo })
    rendered = render(planned, plannedView)
  }
  const { edits, placed, serialized, divergence } = rendered
  // A replay pass that placed nothing renders the state it started from: measuring again would give the same.
  const after = execution !== null || nudge !== null || withheld.length > 0 ? measure(plannedView, planned) : before
  const usageAfter = estimateUsage({ promptTokens: after.total, calibrationTokens: planned.applied.calibrationTokens })
  // What the provider bills for this request, as far as our counts tell: the prefix shared with the previous request
  // read from the cache (while it is warm), the rest uncached or written.
  const previousEstimate = session.recentEstimates[session.recentEstimates.length - 1] ?? { estimate: 0, fixed: 0 }
  const billed = main
    ? billedPrompt({
        promptTokens: usageAfter,
        sharedPrefixTokens: sharedPrefixTokens({
          // The previous request's messages (with the provider's gap to our counts), then the system prompt and tools
          // that come before them.
          previousTokens: previous === null ? 0 : previousEstimate.estimate - previousEstimate.fixed + planned.applied.calibrationTokens,
          previousBytes: previous === null ? 0 : previous.totalBytes,
          divergence,
          fixedTokens: previousEstimate.fixed,
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
  const applied = planned.applied !== session.applied ? planned.applied : null
  const placements = reminder?.placements ?? []
  const record: PassRecord = {
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
    renderedHash: execution ? contentHashOfParts(serialized.chunks) : null,
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
      ...(reasoning ? { reasoning } : {}),
      // How many of the pass's counts a host's event had made ahead (a host's counter only, `CountingAhead`).
      ...(answeredAhead !== null ? { countedAhead: (answeredAheadOf(counter) ?? answeredAhead) - answeredAhead } : {}),
      billed: billed ? { ...billed, cost: promptCost(billed, window.prices), readPrice: window.prices.cachedRead } : null,
    },
    error: null,
  }
  commitOrOwe({
    db,
    state: session,
    owed: options.owed ?? null,
    rows: options.owedRows ?? null,
    seq,
    execution,
    applied,
    placements,
    now: startedAt,
    history: folds ? { planner, pressure: percentBefore, firstDivergence: divergence, radius, now } : null,
    record,
    withheld,
  })

  // The store holds the pass: memory follows.
  session.applied = planned.applied
  if (withheld.length > 0) session.parts = planned.parts
  session.tagsByPart = planned.tagsByPart
  session.tagsByNumber = planned.tagsByNumber
  session.queued = planned.queued
  if (folds) planner.settle()
  if (main) {
    session.previousPrompt = serialized
    session.previousMessageIds = memo.list
    session.recentEstimates.push({ seq, startedAt: now, estimate: after.total, fixed: after.fixed })
    if (session.recentEstimates.length > KEEP_ESTIMATES) session.recentEstimates.shift()
  }
  endPass(memo)
  return {
    seq,
    edits,
    // A list naming an id twice may share entries between its copies: its edits are written by id.
    rendered: { messages, edits, placed: memo.uniqueIds ? placed : null },
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
    reasoning,
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
