import { classifyDropRequest } from "../reduce/classify-drop-request.js"
import { clipText, STORED_ARGUMENT_CHARS } from "../reduce/answer-bounds.js"
import { formatDropAnswer, judgeDropRequest } from "../reduce/drop-answer.js"
import { parseDropRanges } from "../reduce/parse-drop-ranges.js"
import {
  countReduceCalls,
  queueDrops,
  recordReduceCall,
  saveAppliedState,
} from "../store/applied-state-repository.js"
import type { ContextTool } from "./context-tool.js"
import type { HostRuntime } from "./host-runtime.js"
import type { SessionInfo } from "../store/session-repository.js"

export const REDUCE_TOOL_DESCRIPTION =
  "Drop material you are done with from your context. Every message, file and tool output in the conversation " +
  "starts with a tag like §12§; pass the tags to drop as a comma-separated list of numbers and inclusive ranges, " +
  'e.g. drop="3-5,8,12-15". Use it for spent material: old file reads, long command or test output, superseded ' +
  "searches. Drops are queued and land at the next execute pass (not instantly); the raw content stays in " +
  "magic-context's store, and user messages are never dropped. Do not call it again for tags you already queued."

/**
 * ctx_reduce, whatever the host. Validates every tag against the session's last pass (exists, in context, not dropped
 * or queued, not the user's own words, finished; protected ones are deferred), refuses calls that would reclaim almost
 * nothing or repeat too often in one turn, queues the rest and answers exactly what happened and when drops land.
 */
export const REDUCE_CALL: ContextTool = {
  name: "ctx_reduce",
  description: REDUCE_TOOL_DESCRIPTION,
  argument: { name: "drop", description: 'Tags to drop: numbers and inclusive ranges, e.g. "3-5,8,12-15"' },
  failure: "ctx_reduce could not run because of an internal error in magic-context (recorded); nothing was queued.",
  run: reduce,
}

async function reduce(runtime: HostRuntime, session: SessionInfo, drop: unknown): Promise<string> {
  const sessionId = session.id
  const last = runtime.lastPass.get(sessionId)
  if (!last) return "Nothing was queued: magic-context has not seen this session's context yet. Try again after your next step."
  const db = await runtime.database()
  const registry = await runtime.sessions()
  const state = registry.stateFor(session, runtime.counterFor(null))
  const now = Date.now()
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
