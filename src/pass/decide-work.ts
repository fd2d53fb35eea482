import { EMERGENCY_PERCENT, usagePercent, type Band } from "../pressure/bands.js"
import { executePays, type ExecuteEstimate } from "../pressure/execute-pays.js"
import { lastingLanding } from "../pressure/lasting-landing.js"
import { minimumFreedTokens } from "../pressure/minimum-freed.js"
import { growthPerCall, growthPerTurn } from "../pressure/prompt-growth.js"
import { planReclaim, type ReclaimMode } from "../reduce/plan-reclaim.js"
import { planSmartDrops, type SmartDrop } from "../reduce/plan-smart-drops.js"
import type { Breakdown } from "../render/measure-prompt.js"
import type { LiveView } from "../session/live-view.js"
import type { DrainState, QueuedDrop, ReadyHistory, SessionState } from "../session/session-state.js"
import { decidePass, type PassDecision, type ReasoningHold } from "./decide-pass.js"
import { estimateFreedTokens } from "./estimate-freed-tokens.js"
import type { PassCaches } from "./pass-caches.js"
import type { WindowSettings } from "../pressure/model-window.js"
import type { HostMessage } from "../transcript/host-message.js"
import type { RunningTurn } from "../session/running-turn.js"
import type { FoldGains, HistoryPlanner } from "./history-planner.js"

export type WeighedWork = {
  /** Queued drops that may land now. */
  landable: QueuedDrop[]
  /** The smart drops due (worked out on first use: most passes never ask). */
  smart: () => SmartDrop[]
  /** The history an execute pass folds in (null: none, or it would free less than the rest alone). */
  ready: ReadyHistory | null
  /** The cost rule's estimate, where it weighed the due work (below the force band, outside the drain). */
  estimate: ExecuteEstimate | null
  decided: PassDecision
}

/**
 * What is due and whether the pass executes (seed: "Where a pass lands"; DESIGN "Cost-aware timing"): the queued
 * drops that may land, the smart drops, the history the planner prepares when usage is at the threshold or a quiet
 * fold could pay, what all of it would free, the cost rule's verdict below the threshold, and the decision. Reads
 * only.
 */
export function decideWork(options: {
  messages: readonly HostMessage[]
  window: WindowSettings
  now: number
  smartDrops: boolean
  history?: HistoryPlanner | null
  readyHistory?: ReadyHistory | null
  state: SessionState
  view: LiveView
  before: Breakdown
  usageBefore: number
  band: Band
  drain: DrainState
  seq: number
  main: boolean
  cold: boolean
  /** The planner's `foldGains` before this pass cut anything (none without a planner). */
  foldGains: FoldGains
  /** The running turn, where the provider's reasoning rule reads it (null: it does not). */
  turn: RunningTurn | null
  /** The running turn's first message, which no fold reaches (`Infinity`: none). */
  fenceSeq: number
  /** A tool loop's last assistant message must start with its thinking block (manual extended thinking). */
  loopThinkingRequired?: boolean
  /** The provider rejected the last request over its reasoning state (`PassOptions.withholdAllReasoning`). */
  withholdAllReasoning?: boolean
  measure: (view: LiveView, state: SessionState) => Breakdown
  caches: PassCaches
}): WeighedWork {
  const { state, view, before, usageBefore, drain, seq, main, cold, messages, window, now, measure } = options
  const percentBefore = usagePercent(usageBefore, window.usableTokens)
  const thresholdTokens = (window.usableTokens * window.thresholdPercent) / 100
  // The provider's reasoning rule (`reasoning-rules.ts`): where reasoning after a prefix change is lost, an execute
  // pass waits for the turn boundary (`reasoningHold`; in every band where the loop's message must start with its
  // thinking), and one that would otherwise land inside the coming turn runs at its boundary instead: below the
  // threshold, when the largest of the recent turns would carry usage over it.
  const rule = window.reasoning
  const { turn } = options
  const reasoningHold: ReasoningHold | undefined =
    rule.keepsPrefix && turn !== null && turn.open && turn.reasoning
      ? rule.prefixCheck && options.loopThinkingRequired
        ? "every-band"
        : "below-force"
      : undefined
  const lookahead =
    main &&
    rule.keepsPrefix &&
    turn !== null &&
    !turn.open &&
    options.band === "below" &&
    !drain.active &&
    usageBefore + growthPerTurn(view.messages.map((message) => message.info.role), (index) => view.facts[index]?.tokens ?? 0) >= thresholdTokens
  const band: Band = lookahead ? "execute" : options.band
  const protectionsYield = band === "emergency"
  const landable = [...state.queued.values()].filter((drop) => {
    const item = view.byTag.get(drop.tag)
    return item !== undefined && item.final && (!item.protected || protectionsYield)
  })
  let smartDrops: SmartDrop[] | null = null
  const smart = (): SmartDrop[] => (smartDrops ??= options.smartDrops ? planSmartDrops(view) : [])
  // History may fold only settled conversation: never a message of the protected window ...
  const protectedSeq = view.protectedFromSeq
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
  const growth = growthPerCall(state.recentEstimates)
  // With `lasting_landing`, under a cache write premium the pass lands lower, so that its break lasts until the
  // premium is paid back (lasting-landing.ts); otherwise, and without a premium, at the landing line.
  const landingTokens = window.lastingLanding
    ? lastingLanding({
        landingTokens: window.landingTokens,
        thresholdTokens,
        fixedTokens: state.applied.calibrationTokens + before.fixed,
        growthPerCall: growth,
        prices: window.prices,
      })
    : window.landingTokens
  // The cost rule's terms (execute-pays.ts). A break re-sends what follows the history's stable episodes: the fixed
  // prompt and the history stay a prefix (stable-first), the rest is sent again. It is counted on the prompt before
  // the work, an upper bound (the tail re-sent is that less what the work frees): decision 0008 says what the exact
  // tail would cost the Lab. A fold's carried cost is weighed against the write premium on the exact tail only
  // (execute-pays.ts, decision 0028).
  const weigh = (freedTokens: number, dropTokens: number) =>
    executePays({
      freedTokens,
      rewrittenTokens: before.total - before.fixed - before.history,
      // A fold's carried cost runs from the last fold: executes that only landed drops (an agent that cleans up as it
      // goes) do not start it over.
      callsSinceFold: seq - lastFoldPass(state),
      callsSoFar: seq - (state.firstPass - 1),
      callsSinceExecute: seq - (state.applied.lastExecutePass ?? state.firstPass - 1),
      dropTokens,
      promptTokens: usageBefore,
      thresholdTokens,
      growthPerCall: growth,
      cacheCold: cold,
      prices: window.prices,
    })
  // Below the threshold a fold is prepared only when it could pay, bounded by what its compartments save on their
  // source (as cut up to the previous pass): a quiet fold (with room: new episodes at FULL) first; else a priced fold,
  // held to the history budget (new episodes below FULL, as at the threshold), when that could pay: a session that
  // grows far below its threshold pays for its size at every call (at 200k the first fold came at call 112,
  // the whole session costing 5% less than OpenCode alone). It must pay at a warm cache's price: a cold cache lets
  // queued drops land free (cache-expired), but an early fold trades detail for cost, and a break that happens to be
  // free is no reason.
  const planner = options.history ?? null
  const mayFold = main && band === "below" && !drain.active && !cold && planner !== null
  const quietMayPay = mayFold && weigh(options.foldGains.quiet, 0).pays
  const pricedMayPay = mayFold && !quietMayPay && weigh(options.foldGains.budgeted, 0).pays
  const foldMayPay = quietMayPay || pricedMayPay
  const offered = planner
    ? main
      ? planner.prepare({
          messages,
          view,
          state,
          memo: options.caches.memo,
          pass: seq,
          now,
          fold: percentBefore >= window.thresholdPercent || lookahead || foldMayPay,
          budgetTokens: window.historyBudgetTokens,
          ...(pricedMayPay ? {} : { roomTokens: landingTokens - staying }),
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
  // Where the provider binds the running turn's reasoning to its calls, a fold never cuts into that turn.
  const foldable = offered && offered.foldThroughSeq < Math.min(protectedSeq, newestSeq, options.fenceSeq) ? offered : null
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
  const freedRead = main && belowForce && (drain.active || foldable !== null || landable.length > 0)
  const freedBy = (history: ReadyHistory | null): number =>
    estimateFreedTokens({
      messages,
      state,
      before,
      ready: history,
      protectedTokens: window.protectedTokens,
      landable: landable.map((drop) => drop.tag),
      smart: smart().map((drop) => drop.tag),
      // A drain pass reclaims in force mode; any other in age mode.
      reclaim: drain.active ? "force" : "age",
      measure,
      passView: view,
      caches: options.caches,
    })
  const freedWithFold = freedRead ? freedBy(foldable) : 0
  // A fold the cost rule prepared below the threshold goes only where it frees more than the rest of the work alone
  // (its FULL episodes can outweigh what they replace): the queued drops then land without it.
  const freedAlone = foldMayPay && foldable !== null && landable.length > 0 ? freedBy(null) : Number.NEGATIVE_INFINITY
  const ready = freedAlone >= freedWithFold ? null : foldable
  const freedTokens = Math.max(freedWithFold, freedAlone)
  // The cost rule weighs the due work outside the drain (which runs on its own terms).
  const estimate =
    freedRead && !drain.active
      ? weigh(freedTokens, tagTokens(landable.map((drop) => drop.tag)))
      : null
  const decided: PassDecision = main
    ? decidePass({
        band,
        drainActive: drain.active,
        cacheExpired: cold,
        midTool: view.midTool,
        reasoningHold,
        recoverReasoning: options.withholdAllReasoning === true,
        work: {
          landableDrops: landable.length,
          readyHistory: ready ? 1 : 0,
          // Each read only where the decision needs it.
          reclaim: {
            get age() {
              return reclaimTokens("age")
            },
            get force() {
              return reclaimTokens("force")
            },
            get emergency() {
              return reclaimTokens("emergency")
            },
          },
          get smartDrops() {
            return smart().length
          },
          freedTokens,
        },
        pays: estimate?.pays ?? false,
        minimumFreed: minimumFreedTokens(window.usableTokens),
      })
    : { decision: "replay", reason: "nothing-due", reclaim: null, applyQueued: false }
  if (lookahead && decided.decision === "execute") decided.reason = "turn-lookahead"

  return { landable, smart, ready, estimate, decided }
}

/**
 * The pass of the last fold: the applied history's, or the last execute pass for a history stored before folds
 * recorded theirs; before any fold, the pass before the session's first.
 */
export function lastFoldPass(state: SessionState): number {
  const history = state.applied.history
  if (history === null) return state.firstPass - 1
  return history.foldedAtPass ?? state.applied.lastExecutePass ?? state.firstPass - 1
}
