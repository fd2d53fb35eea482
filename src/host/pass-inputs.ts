import { createHistoryPlanner, type HistoryPlanner } from "../pass/history-planner.js"
import type { Session } from "../pass/session.js"
import { landingClamp, landingClampMessage, protectedClamp, resolveWindow, type ModelLimits, type WindowSettings } from "../pressure/model-window.js"
import { protectedClampMessage } from "../reduce/protected-window.js"
import type { Database } from "../store/driver.js"
import type { ReasoningRule } from "../session/reasoning-rules.js"
import type { TokenCounter } from "../tokens/token-counter.js"
import { unrefTimer, type HostRuntime } from "./host-runtime.js"

/** The model's usable window from the host's limits and the config, telling the user once when `protected_tokens` was clamped. */
function hostWindow(runtime: HostRuntime, model: HostModel): WindowSettings {
  const window = resolveWindow({ ...model, config: runtime.config })
  const clamp = protectedClamp(window)
  if (clamp) runtime.warnOnce(`${model.providerID}/${model.modelID}: ${protectedClampMessage(clamp)}`)
  const landing = landingClamp(window, runtime.config)
  if (landing) runtime.warnOnce(`${model.providerID}/${model.modelID}: ${landingClampMessage(landing)}`)
  return window
}

/** What a host window was resolved from: the model, the limits and API the host told for it. */
type HostModel = { providerID: string; modelID: string; hostLimits: ModelLimits | null; hostApi?: string | null }

/**
 * `hostWindow`, resolved once per model while the host tells the same limits and API for it (the config is the
 * runtime's, fixed for its life): a call resolves the window of the model it goes to, every call.
 */
export function hostWindows(runtime: HostRuntime): (model: HostModel) => WindowSettings {
  const resolved = new Map<string, { limits: ModelLimits | null; api: string | null; window: WindowSettings }>()
  return (model) => {
    const key = `${model.providerID}/${model.modelID}`
    const api = model.hostApi ?? null
    const known = resolved.get(key)
    if (known && known.api === api && sameLimits(known.limits, model.hostLimits)) return known.window
    const window = hostWindow(runtime, model)
    resolved.set(key, { limits: model.hostLimits === null ? null : { ...model.hostLimits }, api, window })
    return window
  }
}

function sameLimits(a: ModelLimits | null, b: ModelLimits | null): boolean {
  if (a === null || b === null) return a === b
  return a.context === b.context && a.output === b.output && a.input === b.input
}

/**
 * The reasoning rule of any model the session used, as the window of that model would resolve it (the config's
 * per-model `reasoning`, else the table by the API the host named for it): a pass asks which messages' thinking the
 * prefix check binds.
 */
export function hostReasoningRuleOf(runtime: HostRuntime): (providerID: string, modelID: string) => ReasoningRule {
  return (providerID, modelID) =>
    resolveWindow({ providerID, modelID, hostLimits: null, config: runtime.config, hostApi: runtime.facts.apiFor(providerID, modelID) }).reasoning
}

/** The session's history planner, made on its first pass and kept by the session; none while the historian is off. */
export function historyPlannerFor(runtime: HostRuntime, session: Session, made: { db: Database; counter: TokenCounter }): HistoryPlanner | undefined {
  const known = session.planner ?? undefined
  if (known || runtime.config.historian.strategy === "off") return known
  const planner = createHistoryPlanner({
    ...made,
    sessionId: session.id,
    policy: runtime.config.history_policy,
    pinPatterns: runtime.pinPatterns,
    expanded: runtime.expanded,
    // Stored after the pass, off the request path (`settleAfterPass`).
    deferCuts: true,
    // A cut's compartments follow the raw rows they come from.
    beforeCutWrite: () => session.storeRows(),
  })
  session.usePlanner(planner)
  return planner
}

/**
 * What the session's last pass left to store once it returned (`Session.settle`: a quiet pass's record, then the
 * compartments it cut), in slices of `SETTLE_SLICE_EPISODES`, a turn of the loop each: the cold call's cut of a long
 * session is thousands of episodes. The first slice runs after the shell's own continuation (the request on its way,
 * while the model answers); a pass that comes first settles with its own, and a reader of the compartments settles
 * them itself. On the runtime's default timer, not its `schedule` (which tests drive by a clock). `guarded` runs each
 * slice under the shell's guard: an error is recorded, never thrown into the host (the record stays owed; a cut whose
 * write failed is made again by the next pass).
 */
export function settleAfterPass(runtime: HostRuntime, sessionId: string, guarded: (settle: () => void) => void): void {
  const slice = (): void => {
    guarded(() => {
      if (runtime.settle(sessionId, SETTLE_SLICE_EPISODES)) unrefTimer(slice, 0)
    })
  }
  unrefTimer(slice, 0)
}

/** Episodes stored per turn of the event loop after a pass (~1 ms each at most on this machine's long sessions). */
export const SETTLE_SLICE_EPISODES = 32
