import { buildLiveView, type LiveView } from "../session/live-view.js"
import { planReclaim, type ReclaimMode } from "../reduce/plan-reclaim.js"
import type { Breakdown } from "../render/measure-prompt.js"
import type { HostMessage } from "../transcript/host-message.js"
import type { ReadyHistory, SessionState } from "../session/session-state.js"

/**
 * What an execute pass would free, in tokens: the history fold (the prompt measured with the ready history applied,
 * against the prompt before), plus every tag that the pass's reclaim (`reclaim`: force for a drain pass, age at the
 * threshold), the landable queued drops and the smart drops would take from what stays live after the fold, each
 * once, at its content and call tokens (as the reclaim totals the decision reads are counted). A history that would
 * grow the prompt counts against the rest. Reads only.
 */
export function estimateFreedTokens(options: {
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
}): number {
  const { state, ready } = options
  const history = ready ? { foldedThroughSeq: ready.foldThroughSeq, text: ready.text, tokens: ready.tokens } : null
  const folded: SessionState = history ? { ...state, applied: { ...state.applied, history } } : state
  // The pass's memo holds every live message's facts for these records: read, never written (the pass's views own it).
  const view = buildLiveView({ messages: options.messages, state: folded, protectedTokens: options.protectedTokens, memo: state.messageMemo, readOnly: true })
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
