import { buildLiveView, type LiveView } from "../session/live-view.js"
import { planReclaim, type ReclaimMode } from "../reduce/plan-reclaim.js"
import type { Breakdown } from "../render/measure-prompt.js"
import type { HostMessage } from "../transcript/host-message.js"
import type { ReadyHistory, SessionState } from "../session/session-state.js"
import type { PassCaches } from "./pass-caches.js"

/** What `estimateFreedTokens` reads. */
type EstimateOptions = {
  messages: readonly HostMessage[]
  state: SessionState
  before: Breakdown
  ready: ReadyHistory | null
  protectedTokens: number
  landable: readonly number[]
  smart: readonly number[]
  reclaim: ReclaimMode
  /** The pass's own measure of a view against a state. */
  measure: (view: LiveView, state: SessionState) => Breakdown
  /**
   * The pass's own view of `state` (optional): while its items are the last pass's very array (the messages and their
   * records unchanged), an estimate asked with the same inputs is the one worked out then.
   */
  passView?: LiveView
  /** The session's caches: the memo the pass's views wrote (read only here) and the estimates made so far. */
  caches: PassCaches
}

/**
 * What an execute pass would free, in tokens: the history fold (the prompt measured with the ready history applied,
 * against the prompt before), plus every tag that the pass's reclaim (`reclaim`: force for a drain pass, age at the
 * threshold), the landable queued drops and the smart drops would take from what stays live after the fold, each
 * once, at its content and call tokens (as the reclaim totals the decision reads are counted). A history that would
 * grow the prompt counts against the rest. Reads only.
 */
export function estimateFreedTokens(options: EstimateOptions): number {
  const { placements, history } = options.state.applied
  if (!options.passView) return estimate(options)
  const key = estimateKey(options)
  const { estimates } = options.caches
  const known = estimates.get(options.passView.items) ?? []
  const kept = known.find((made) => made.key === key && made.placements === placements && made.history === history)
  if (kept) return kept.freed
  const freed = estimate(options)
  estimates.set(options.passView.items, [...known.slice(-1), { key, placements, history, freed }])
  return freed
}

/** The numbers and tags an estimate reads besides the items, the applied placements and the history, as one string. */
function estimateKey(options: EstimateOptions): string {
  const { before, ready } = options
  return [
    ready ? `${ready.foldThroughSeq}:${ready.tokens}` : "-",
    options.protectedTokens,
    before.total,
    before.fixed,
    before.history,
    before.conversation,
    before.protected,
    before.tool,
    before.tags,
    options.reclaim,
    options.state.applied.boundarySeq,
    options.landable.join(","),
    options.smart.join(","),
  ].join("|")
}

function estimate(options: EstimateOptions): number {
  const { state, ready } = options
  const history = ready ? { foldedThroughSeq: ready.foldThroughSeq, text: ready.text, tokens: ready.tokens } : null
  const folded: SessionState = history ? { ...state, applied: { ...state.applied, history } } : state
  // The pass's memo holds every live message's facts for these records: read, never written (the pass's views own it).
  const view = buildLiveView({ messages: options.messages, state: folded, protectedTokens: options.protectedTokens, memo: options.caches.memo, readOnly: true })
  const historyFreed = ready ? options.before.total - options.measure(view, folded).total : 0
  const reclaimed = planReclaim({ view, mode: options.reclaim, boundarySeq: state.applied.boundarySeq })
  const tags = new Set([...reclaimed, ...options.landable, ...options.smart])
  let dropsFreed = 0
  for (const tag of tags) {
    const item = view.byTag.get(tag)
    if (item?.final) dropsFreed += item.contentTokens + item.callTokens
  }
  return historyFreed + dropsFreed
}
