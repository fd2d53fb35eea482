import type { Band } from "../pressure/bands.js"
import type { ReclaimMode } from "../reduce/plan-reclaim.js"

/** How far a running tool loop's thinking holds an execute pass back (`decidePass`). */
export type ReasoningHold = "below-force" | "every-band"

/** What is waiting to be applied, as counts. */
export type DueWork = {
  /** Queued ctx_reduce drops that may land now (outside the protected window, or protections yield). */
  landableDrops: number
  /** Compartments the historian finished that are not folded in yet. */
  readyHistory: number
  /** Tokens reclaim would free in each mode. */
  reclaim: Record<ReclaimMode, number>
  /** Smart drops that would apply (0 when smart_drops is off). */
  smartDrops: number
  /**
   * Tokens an execute pass would free in all: the history fold (what it replaces less the new history message), force
   * or age reclaim, landable and smart drops, each item once. Read only below the force band, while the drain is
   * active or when work that opens a rewrite is due (0 otherwise).
   */
  freedTokens: number
}

export type PassDecision = {
  decision: "execute" | "replay"
  /** One short machine-friendly reason, recorded with the pass. */
  reason:
    | "emergency"
    | "force-band"
    | "drain"
    | "threshold-work"
    | "cache-expired"
    | "below-threshold"
    | "nothing-due"
    | "mid-tool-deferred"
    | "reasoning-deferred"
    | "turn-lookahead"
    | "reasoning-recovery"
    | "waiting-for-rebuild"
    | "drain-below-minimum"
    | "history-below-minimum"
    | "pays"
  /** Which reclaim rides this pass (null: none). */
  reclaim: ReclaimMode | null
  /** Queued drops land, and smart drops apply (when enabled). */
  applyQueued: boolean
}

/**
 * Decides whether a pass executes (applies all due work together, changing the prompt) or replays (renders the
 * same applied state, so the previous prompt stays a byte prefix). Follows the seed's bands:
 * - 95% and above: execute, protections yield (emergency recovery);
 * - force band (max(85, threshold + 2)): execute now, even mid-tool, with force reclaim; the emergency drain
 *   that this starts keeps executing while a pass would free at least `minimumFreed` tokens in all (history fold,
 *   reclaim and drops together), until usage is 10 points under the threshold (or its 30-minute latch expires).
 *   While the drain is active, a pass that would free less does not execute at all (not even for threshold work:
 *   that was a cache rewrite for a few hundred tokens on every pass) unless the prompt cache expired anyway;
 * - in any band, a pass with nothing to apply replays: an execute pass that changes nothing would only cost a
 *   cache rewrite;
 * - at or above the threshold: execute when work that opens a rewrite is due (queued drops, or ready history that
 *   frees at least `minimumFreed`: a new small compartment every turn is not worth a rewrite every turn) or the
 *   prompt cache has expired anyway; age-based reclaim rides such a pass but never opens one. The threshold says when
 *   an execute must run (the seed's worked example), not when it should;
 * - below the threshold: the same work executes once it pays for its prefix break (`pays`, execute-pays.ts: DESIGN
 *   "Cost-aware timing"), and an expired cache lets queued drops land.
 * Normal operation defers an execute pass while the newest message still waits for a tool result, and, under a
 * provider's reasoning rule that binds thinking to its prefix (`reasoningHold`), while a tool loop whose thinking the
 * change would invalidate is running: the pass waits for the turn boundary (a rejected request ends the session).
 * The force and emergency bands execute inside such a loop only where the loop may go on without its thinking
 * (`"below-force"`: adaptive thinking); where the loop's last assistant message must start with its thinking block
 * (`"every-band"`: manual extended thinking) no band does, since the provider would reject the request either way.
 */
export function decidePass(options: {
  band: Band
  drainActive: boolean
  cacheExpired: boolean
  midTool: boolean
  /**
   * An execute now would change the prefix of the running tool loop's thinking (`reasoning-rules.ts`, prefix check):
   * it waits for the turn boundary below the force band, or in every band. Absent: no hold.
   */
  reasoningHold?: ReasoningHold
  /** The provider rejected the last request over its reasoning state: execute now, whatever is due. */
  recoverReasoning?: boolean
  work: DueWork
  /** The least a drain pass, or a pass opened by ready history alone, must free to be worth a rewrite. */
  minimumFreed: number
  /** The cost rule's verdict on the due work (execute-pays.ts); false when there is none to weigh. */
  pays: boolean
}): PassDecision {
  const { band, drainActive, cacheExpired, work } = options
  // Outside the force and emergency bands, a pass that would execute replays while one of these holds it.
  const held: PassDecision["reason"] | null = options.midTool ? "mid-tool-deferred" : options.reasoningHold ? "reasoning-deferred" : null
  const opening = work.landableDrops + work.readyHistory
  const nothing: PassDecision = { decision: "replay", reason: "nothing-due", reclaim: null, applyQueued: false }
  if (options.recoverReasoning) return { decision: "execute", reason: "reasoning-recovery", reclaim: "age", applyQueued: true }
  if (options.reasoningHold === "every-band" && (band === "emergency" || band === "force")) return { ...nothing, reason: "reasoning-deferred" }
  if (band === "emergency") {
    if (opening + work.smartDrops + work.reclaim.emergency === 0) return nothing
    return { decision: "execute", reason: "emergency", reclaim: "emergency", applyQueued: true }
  }
  if (band === "force") {
    if (opening + work.smartDrops + work.reclaim.force === 0) return nothing
    return { decision: "execute", reason: "force-band", reclaim: "force", applyQueued: true }
  }
  if (drainActive && work.freedTokens >= options.minimumFreed) {
    if (held) return { ...nothing, reason: held }
    return { decision: "execute", reason: "drain", reclaim: "force", applyQueued: true }
  }
  if (drainActive && !cacheExpired) return { ...nothing, reason: "drain-below-minimum" }
  if (band === "execute") {
    const riding = work.reclaim.age + work.smartDrops
    if (opening === 0 && !(cacheExpired && riding > 0)) {
      return { ...nothing, reason: riding > 0 ? "waiting-for-rebuild" : "nothing-due" }
    }
    if (work.landableDrops === 0 && work.freedTokens < options.minimumFreed && !cacheExpired) {
      return { ...nothing, reason: "history-below-minimum" }
    }
    if (held) return { ...nothing, reason: held }
    return { decision: "execute", reason: opening > 0 ? "threshold-work" : "cache-expired", reclaim: "age", applyQueued: true }
  }
  if (cacheExpired && work.landableDrops + work.smartDrops > 0 && !held) {
    return { decision: "execute", reason: "cache-expired", reclaim: null, applyQueued: true }
  }
  const worthRewrite = work.landableDrops > 0 || work.freedTokens >= options.minimumFreed
  if (opening > 0 && options.pays && worthRewrite && !held) {
    return { decision: "execute", reason: "pays", reclaim: "age", applyQueued: true }
  }
  return { decision: "replay", reason: "below-threshold", reclaim: null, applyQueued: false }
}
