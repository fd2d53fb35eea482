import { queueReduceCall } from "../pass/queue-reduce-call.js"
import type { ContextTool } from "./context-tool.js"
import type { HostRuntime } from "./host-runtime.js"
import { REDUCE_TOOL_TEXT } from "../reduce/agent-texts.js"
import type { SessionInfo } from "../store/session-repository.js"

/**
 * ctx_reduce, whatever the host. Validates every tag against the session's last pass (exists, in context, not dropped
 * or queued, not the user's own words, finished; protected ones are deferred), refuses calls that would reclaim almost
 * nothing or repeat too often in one turn, queues the rest and answers exactly what happened and when drops land.
 */
export const REDUCE_CALL: ContextTool = {
  ...REDUCE_TOOL_TEXT,
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
