import { classifyDropRequest } from "../reduce/classify-drop-request.js"
import { clipText, STORED_ARGUMENT_CHARS } from "../reduce/answer-bounds.js"
import { formatDropAnswer, judgeDropRequest } from "../reduce/drop-answer.js"
import { parseDropRanges } from "../reduce/parse-drop-ranges.js"
import type { WindowSettings } from "../pressure/model-window.js"
import { tagIndex, type LiveView } from "../session/live-view.js"
import type { SessionState } from "../session/session-state.js"
import {
  countReduceCalls,
  queueDrops,
  recordReduceCall,
  saveAppliedState,
} from "../store/applied-state-repository.js"
import type { Database } from "../store/driver.js"
import { usagePercent } from "../pressure/bands.js"
import { newestUserInfo, type HostMessage } from "../transcript/host-message.js"
import type { PassResult } from "./run-pass.js"

/** What a ctx_reduce call is judged against: the session's last main pass. */
export type ReduceContext = {
  view: ReduceView
  window: WindowSettings
  usagePercent: number
  /** The newest user message: the current turn, for the per-turn ctx_reduce cap. */
  turnMessageId: string | null
  passSeq: number
}

/** What ctx_reduce reads of a pass's view: its items by tag. */
export type ReduceView = Pick<LiveView, "byTag">

/**
 * The pass's view as ctx_reduce keeps it until the next pass: its items, without the host's messages the view was
 * built from (the host's copy can go once the pass is done).
 */
function reduceView(view: LiveView): ReduceView {
  const byTag = tagIndex(view.items)
  return {
    get byTag() {
      return byTag()
    },
  }
}

/** The reduce context a main pass leaves; `messages` are the host's, before the pass's edits (a steer message is not the turn). */
export function reduceContextOf(result: PassResult, window: WindowSettings, messages: readonly HostMessage[]): ReduceContext {
  return {
    view: reduceView(result.view),
    window,
    usagePercent: usagePercent(result.usageAfter, window.usableTokens),
    turnMessageId: newestUserInfo(messages)?.id ?? null,
    passSeq: result.seq,
  }
}

/**
 * One ctx_reduce call against the session's last pass: validates every tag (exists, in context, not dropped or queued,
 * not the user's own words, finished; protected ones are deferred), refuses calls that would reclaim almost nothing or
 * repeat too often in one turn, queues the rest in one transaction (and in `state`), records the call, and answers
 * exactly what happened and when drops land. The live tool and the replay of a recorded call both run it.
 */
export function queueReduceCall(options: { db: Database; state: SessionState; last: ReduceContext; drop: unknown; now: number }): string {
  const { db, state, last, drop, now } = options
  const sessionId = state.sessionId
  const argument = storedArgument(drop)
  const record = (counts: { queued: number; deferred: number; rejected: number }, refusedReason: string | null): void =>
    recordReduceCall(db, { sessionId, turnMessageId: last.turnMessageId, at: now, dropArgument: argument, ...counts, refusedReason })

  const parsed = parseDropRanges(drop)
  if (!parsed.ok) {
    record({ queued: 0, deferred: 0, rejected: 0 }, parsed.error)
    return `Nothing was queued: ${parsed.error}.`
  }
  const classification = classifyDropRequest({ tags: parsed.value.tags, state, view: last.view })
  const verdict = judgeDropRequest({ classification, callsThisTurn: countReduceCalls(db, sessionId, last.turnMessageId) })
  const outlook = {
    usagePercent: last.usagePercent,
    thresholdPercent: last.window.thresholdPercent,
    cacheTtlMinutes: Math.round(last.window.cacheTtlMs / 60_000),
  }
  if (verdict.kind === "refused") {
    record({ queued: 0, deferred: 0, rejected: classification.rejected.length }, verdict.reason)
    return formatDropAnswer({ verdict, notes: parsed.value.notes, outlook })
  }
  db.transaction(() => {
    for (const queued of queueDrops(db, sessionId, verdict.queue, { pass: last.passSeq, now })) state.queued.set(queued.tag, queued)
    // Only a call that queued something means the agent is managing context (reminders pause).
    if (verdict.queue.length > 0) {
      state.applied = { ...state.applied, lastReducePass: last.passSeq }
      saveAppliedState(db, sessionId, state.applied, now)
    }
    record(
      {
        queued: classification.queued.length,
        deferred: classification.deferred.length,
        rejected: classification.rejected.length,
      },
      null,
    )
  })
  return formatDropAnswer({ verdict, notes: parsed.value.notes, outlook })
}

/**
 * The argument as the call record keeps it: its first STORED_ARGUMENT_CHARS characters and its length (the host's
 * tool part keeps the whole argument). A value that is not a string is kept as JSON, and one JSON cannot write (nested
 * too deep) by its type.
 */
function storedArgument(drop: unknown): string {
  if (typeof drop === "string") return clipText(drop, STORED_ARGUMENT_CHARS)
  try {
    return clipText(JSON.stringify(drop) ?? "", STORED_ARGUMENT_CHARS)
  } catch {
    return `[${typeof drop} that JSON cannot write]`
  }
}
