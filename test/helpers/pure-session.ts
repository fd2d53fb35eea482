import { applyPlanToState, planIngest } from "../../src/session/plan-ingest.js"
import { emptySessionState, type DropReason, type SessionState, type TagRecord } from "../../src/session/session-state.js"
import { buildLiveView, type LiveView } from "../../src/session/live-view.js"
import type { TokenCounter } from "../../src/tokens/token-counter.js"
import type { HostMessage } from "../../src/transcript/host-message.js"
import { TEST_SESSION } from "./host-messages.js"

/**
 * Pure session state for tests of the planning modules (no store): ingest with a counter that counts only the word
 * "tok", so every size is exactly the material put in and tag prefixes, markers and tool calls cost nothing.
 */

/** Counts only the word "tok" (as the worked example does). */
export const tokCounter: TokenCounter = { encoding: "tok", count: (body) => (body.match(/\btok\b/g) ?? []).length }

/** Text of exactly `count` tokens for `tokCounter`. */
export function toks(count: number): string {
  return "tok ".repeat(count).trimEnd()
}

/** The state of a fresh session after one ingest of `messages` (tags 1..N in order, sequences 1..M). */
export function ingestedState(messages: readonly HostMessage[], counter: TokenCounter = tokCounter): SessionState {
  const state = emptySessionState(TEST_SESSION)
  applyPlanToState(state, planIngest({ state, messages: messages as HostMessage[], counter }))
  return state
}

/** The live view of `messages` (ingesting them first when no state is given). */
export function liveView(
  messages: readonly HostMessage[],
  options: { protectedTokens?: number; state?: SessionState; counter?: TokenCounter } = {},
): LiveView {
  const state = options.state ?? ingestedState(messages, options.counter)
  return buildLiveView({ messages, state, protectedTokens: options.protectedTokens ?? 0 })
}

/** The tag record of a part, or a thrown error. */
export function tagOf(state: SessionState, partId: string): TagRecord {
  const tag = state.tagsByPart.get(partId)
  if (!tag) throw new Error(`no tag for part ${partId}`)
  return tag
}

/** Marks a tag dropped in memory, as an execute pass does. */
export function markDropped(
  state: SessionState,
  partId: string,
  reason: DropReason = "reduce",
  supersededBy: number | null = null,
): TagRecord {
  const tag = tagOf(state, partId)
  tag.status = "dropped"
  tag.droppedReason = reason
  tag.supersededBy = supersededBy
  return tag
}
