import type { ReasoningRule, ReasoningRuleSource } from "../session/reasoning-rules.js"
import type { Breakdown } from "../render/measure-prompt.js"
import type { ErrorRecord } from "../store/error-repository.js"
import type { HistoryMeasure } from "./measure-history.js"
import type { StoreHealth } from "./store-health.js"
import type { PricesInForce } from "../session/price-lists.js"
import type { ExecuteCost } from "../pressure/session-cost.js"

/** Everything the status report shows about one session; gathered by `gatherStatus`, printed by `formatStatus`. */
export type StatusData = {
  sessionId: string
  title: string | null
  /** The newest main pass, or null when the session has none. */
  lastPass: {
    seq: number
    at: number
    decision: string
    reason: string | null
    band: string | null
    usageTokens: number | null
    windowTokens: number | null
    breakdown: Breakdown | null
    nudge: { level: string; channel: number } | null
  } | null
  thresholdPercent: number | null
  /** The newest execute pass: what it changed. */
  lastExecute: {
    seq: number
    at: number
    reason: string | null
    usageBefore: number | null
    usageAfter: number | null
    dropped: number[]
    tierChanges: { compartment: string; from: string | null; to: string }[]
    /** The byte of the prompt where it first differed from the previous request (null: it did not). */
    firstDivergence: number | null
    /** What the request it sent cost (estimated, uncached-token units; null for a pass that recorded none). */
    cost: number | null
    /** What it freed, read from the cache at each call since it (itself included): its saving so far. */
    saved: number | null
    callsSince: number
  } | null
  /** The session's estimated prompt cost so far (main passes that recorded one). */
  cost: { calls: number; cost: number; promptTokens: number; cachedTokens: number }
  queuedDrops: number[]
  tags: { total: number; dropped: number }
  historian: {
    strategy: string
    compartments: number
    folded: number
    modelTiers: number
    tiers: Record<string, number>
    lastError: ErrorRecord | null
  }
  /** What the applied history is made of (null before the first fold). */
  history: HistoryMeasure | null
  pins: number
  errors: ErrorRecord[]
  /** The host's own compaction as its settings say (it summarizes the session behind magic-context's back). */
  hostCompaction: HostCompaction | null
  /** The protected window the last pass used, when the configured `protected_tokens` had to be clamped. */
  protectedClamp?: { clampedFrom: number; tokens: number; usableTokens: number } | null
  /** The store's last failure while the plugin still skips or retries it (the plugin's runtime knows it). */
  store?: StoreHealth | null
  /** Config problems of this process (a file or value refused), one line each. */
  configProblems?: readonly string[]
  /** The provider's rule on reasoning state for the session's model, and what it made the passes do. */
  reasoning?: ReasoningStatus | null
  /** The session's estimated cost under the price list in force, against the host alone (null: no price list known). */
  costEstimate?: CostEstimate | null
  /** Sessions the reporting host process holds in memory (absent where no host process reports: the CLI, the TUI). */
  sessionsHeld?: number
}

/** The prices a report estimates cost under: the list in force, the cache lifetime, the model they are for. */
export type CostPricing = { prices: PricesInForce; cacheTtlMs: number; model: string | null }

/** The session's prompt cost under the list in force, the same calls as the host alone sends them, the last execute's. */
export type CostEstimate = {
  pricing: CostPricing
  calls: number
  withPlugin: number
  /** Null when the stored messages do not tell what the host alone would have sent. */
  hostAlone: number | null
  /** The newest execute pass's request and saving (null: none, or it recorded no request). */
  lastExecute: (ExecuteCost & { seq: number }) | null
}

/** The reasoning rule in force (`session/reasoning-rules.ts`) and what it made the session's passes do. */
export type ReasoningStatus = {
  /** The table's row (its model pattern left out: the report names the model). */
  rule: Omit<ReasoningRule, "models">
  /** Where the rule came from: the config's per-model `reasoning`, or the table by the model's API and id. */
  source: ReasoningRuleSource
  /** The model it applies to ("provider/model"), when known. */
  model: string | null
  deferred: number
  withheld: number
  withheldTokens: number
  runningLoop: number
}

/** A host's compaction settings: what they are, what magic-context recommends instead (null: they are fine), and where they were read. */
export type HostCompaction = { host: string; settings: string; recommended: string | null; source: string }

/** OpenCode's compaction (`compaction.auto`, `compaction.prune` in its config). */
export function openCodeCompaction(settings: { auto: boolean; prune: boolean; source: string }): HostCompaction {
  const { auto, prune, source } = settings
  return { host: "OpenCode", settings: `auto ${auto}, prune ${prune}`, recommended: auto || prune ? '"compaction": {"auto": false, "prune": false}' : null, source }
}

/** Pi's auto-compaction (`compaction.enabled` in its settings.json), and how often it compacted this session in this process. */
export function piCompaction(settings: { enabled: boolean; source: string; compacted: number }): HostCompaction {
  const { enabled, source, compacted } = settings
  const seen = compacted > 0 ? `; compacted this session ${compacted === 1 ? "once" : `${compacted} times`} since Pi started` : ""
  return { host: "Pi", settings: `enabled ${enabled}${seen}`, recommended: enabled ? '"compaction": {"enabled": false}' : null, source }
}
