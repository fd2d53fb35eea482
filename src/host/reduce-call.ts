import { queueReduceCall, REDUCE_TOOL } from "../pass/queue-reduce-call.js"
import type { ContextTool } from "./context-tool.js"
import type { HostRuntime } from "./host-runtime.js"
import { REDUCE_ALONGSIDE, REDUCE_NEVER_ALONE } from "../reduce/reduce-timing.js"
import type { SessionInfo } from "../store/session-repository.js"

export const REDUCE_TOOL_DESCRIPTION =
  "Drop material you are done with from your context. Every message, file and tool output in the conversation " +
  "starts with a tag like §12§; pass the tags to drop as a comma-separated list of numbers and inclusive ranges, " +
  'e.g. drop="3-5,8,12-15". Use it for spent material: old file reads, long command or test output, superseded ' +
  "searches. Drops are queued and land at the next execute pass (not instantly); the raw content stays in " +
  "magic-context's store, and user messages are never dropped. Do not call it again for tags you already queued. " +
  `Call it ${REDUCE_ALONGSIDE} ${REDUCE_NEVER_ALONE}`

/**
 * ctx_reduce, whatever the host. Validates every tag against the session's last pass (exists, in context, not dropped
 * or queued, not the user's own words, finished; protected ones are deferred), refuses calls that would reclaim almost
 * nothing or repeat too often in one turn, queues the rest and answers exactly what happened and when drops land.
 */
export const REDUCE_CALL: ContextTool = {
  name: REDUCE_TOOL,
  description: REDUCE_TOOL_DESCRIPTION,
  argument: { name: "drop", description: 'Tags to drop: numbers and inclusive ranges, e.g. "3-5,8,12-15"' },
  failure: "ctx_reduce could not run because of an internal error in magic-context (recorded); nothing was queued.",
  run: reduce,
}

async function reduce(runtime: HostRuntime, session: SessionInfo, drop: unknown): Promise<string> {
  const last = runtime.lastPass.get(session.id)
  if (!last) return "Nothing was queued: magic-context has not seen this session's context yet. Try again after your next step."
  const db = await runtime.database()
  const registry = await runtime.sessions()
  const state = registry.stateFor(session, runtime.counterFor(null))
  return queueReduceCall({ db, state, last, drop, now: Date.now() })
}
