import { reduceContextOf } from "../pass/queue-reduce-call.js"
import type { PassResult } from "../pass/run-pass.js"
import type { SessionPassInput } from "../pass/session.js"
import { systemClock } from "../pass/system-clock.js"
import type { ReplyCreated } from "../pass/calibrate.js"
import type { ModelLimits } from "../pressure/model-window.js"
import type { Database } from "../store/driver.js"
import type { SessionInfo } from "../store/session-repository.js"
import { storeFailureKind } from "../store/store-failure.js"
import type { TokenCounter } from "../tokens/token-counter.js"
import type { HostMessage } from "../transcript/host-message.js"
import type { DeferredWrites } from "./deferred-writes.js"
import { maybeFail } from "./fault-injection.js"
import type { HostGuard } from "./host-guard.js"
import type { HostRuntime } from "./host-runtime.js"
import { historyPlannerFor, hostReasoningRuleOf, hostWindows, settleAfterPass } from "./pass-inputs.js"

/** What the host says about one request, read once the deferred rows are written and the session is loaded. */
export type HostRequest = {
  /** `compaction`: the host's own summary request (no main step follows, so no last pass is recorded). */
  trigger: "transform" | "compaction"
  /** The model the request goes to, with the limits and API the host told for it (null: not told). */
  model: { providerID: string; modelID: string; hostLimits: ModelLimits | null; hostApi: string | null }
  /** Whether the agent has the ctx_reduce tool (sees `§N§` tags, reduce guidance and reminders). */
  tagsVisible: boolean
  /** When the host creates a request's reply (see `calibrated`); OpenCode's order when absent. */
  replyCreated?: ReplyCreated
  loopThinkingRequired: boolean
  /** True when the provider rejected the session's last request over its reasoning state (see `PassOptions`). */
  withholdAllReasoning?: (db: Database) => boolean
}

/** One host pass: the host's messages, read as host messages, and how its edits go back into the host's list. */
export type HostPassRequest = {
  info: SessionInfo
  /** The messages the pass reads (read only); deferred as they are when the store fails. */
  messages: readonly HostMessage[]
  counter: TokenCounter
  describe: () => Promise<HostRequest> | HostRequest
  /** Writes the pass's rendered edits into the host's own list (`applyRenderedEdits`). */
  apply: (result: PassResult) => void
}

/** The host's side of every pass, wired once per host; adapters translate their messages and call `run`. */
export type HostPass = {
  /**
   * Flushes deferred rows, runs the pass, records it as the session's last pass, applies the rendered edits and
   * schedules what the pass still owes the store a turn later. On a store failure the messages are deferred, the
   * session is forgotten (it is read again from the store) and the error is rethrown for the guard: the host goes on
   * with its messages unchanged.
   */
  run(request: HostPassRequest): Promise<PassResult>
}

/** Creates the host pass; `settleHook` names the settle step in the error log, `afterRecord` and `afterSettle` are host-only steps. */
export function createHostPass(options: {
  runtime: HostRuntime
  writes: DeferredWrites
  guard: HostGuard
  settleHook: string
  /** Called once a main (non-compaction) pass is recorded, before its edits apply. */
  afterRecord?: (sessionId: string) => void
  /** Called once the settle is scheduled, for a main pass. */
  afterSettle?: (sessionId: string) => void
}): HostPass {
  const { runtime, writes, guard, settleHook } = options
  const windowOf = hostWindows(runtime)
  const reasoningRuleOf = hostReasoningRuleOf(runtime)

  const pass = async (request: HostPassRequest): Promise<PassResult> => {
    const sessionId = request.info.id
    const { counter, messages } = request
    const registry = await runtime.sessions()
    const session = registry.sessionFor(request.info, counter)
    const host = await request.describe()
    const { providerID, modelID } = host.model
    const window = windowOf(host.model)
    const db = await runtime.database()
    historyPlannerFor(runtime, session, { db, counter })
    const main = host.trigger !== "compaction"
    // Built property by property: a spread into the literal cost more than the rest of this step under Node.
    const input: SessionPassInput = {
      messages,
      counter,
      clock: systemClock,
      trigger: host.trigger,
      tagsVisible: host.tagsVisible,
      window,
      fixedTokens: runtime.facts.fixedTokens(sessionId),
      now: Date.now(),
      smartDrops: runtime.config.smart_drops,
    }
    if (host.replyCreated) input.replyCreated = host.replyCreated
    input.loopThinkingRequired = host.loopThinkingRequired
    input.reasoningRuleOf = reasoningRuleOf
    if (host.withholdAllReasoning) input.withholdAllReasoning = main && host.withholdAllReasoning(db)
    const result = session.pass(input)
    if (main) {
      options.afterRecord?.(sessionId)
      runtime.lastPass.set(sessionId, { ...reduceContextOf(result, window, messages), tagsVisible: host.tagsVisible, model: `${providerID}/${modelID}` })
    }
    maybeFail(runtime.faults, "transform")
    request.apply(result)
    settleAfterPass(runtime, sessionId, (settle) => void guard(settleHook, sessionId, settle))
    if (main) options.afterSettle?.(sessionId)
    return result
  }

  return {
    async run(request) {
      try {
        // Rows an earlier failure left waiting go first, so nothing the host has since compacted away is lost.
        await writes.flush()
        const result = await pass(request)
        runtime.storeWorked()
        return result
      } catch (error) {
        // Fail open: the host sends its own messages; their rows are written once the store can take them.
        if (storeFailureKind(error) !== null) {
          writes.defer(request.info.id, request.messages)
          runtime.forgetSession(request.info.id)
        }
        throw error
      }
    },
  }
}
