import type { Config, ModelOverride } from "../config/schema.js"
import { protectedWindow } from "../reduce/protected-window.js"
import { drainExitPercent } from "./bands.js"
import {
  PRICE_LISTS,
  providerFamily,
  resolvePrices,
  type PriceListName,
  type PricesInForce,
  type ProviderFamily,
  type TokenPrices,
} from "../session/price-lists.js"
import { parseDurationMs } from "./duration.js"
import { NO_REASONING_RULE, reasoningApi, reasoningRuleById, reasoningRuleFor, type ReasoningRule, type ReasoningRuleSource } from "../session/reasoning-rules.js"

/** The limits a host reports for a model; `input`, where the model has one, caps the prompt itself. */
export type ModelLimits = { context: number; output: number; input?: number }

/** OpenCode reserves at most this many output tokens when it checks for overflow (OPENCODE-NOTES §1.10). */
export const OUTPUT_RESERVE_CAP = 32_000
/** For a model with an input limit, OpenCode's overflow point is the input limit minus at most this many tokens. */
export const INPUT_RESERVE_CAP = 20_000
/** The context window assumed when neither the host nor the config names one. */
export const FALLBACK_CONTEXT = 128_000
export const FALLBACK_OUTPUT = 4_096

/** Everything pressure needs to know about the active model's window. */
export type WindowSettings = {
  /** Context minus the output reserve: what usage percentages are of. */
  usableTokens: number
  contextTokens: number
  outputReserve: number
  thresholdPercent: number
  cacheTtlMs: number
  protectedTokens: number
  /** The configured `protected_tokens` when it was over a quarter of the usable window and clamped, else null. */
  protectedClampedFrom: number | null
  /** Compartment history budget: `history_budget` percent of the threshold's tokens (200k at 65% -> 19,500). */
  historyBudgetTokens: number
  /** Pinned ledger budget: `pin_budget` percent of the threshold's tokens. */
  pinBudgetTokens: number
  /** Where an execute pass lands: `history_landing` percent of the usable window (at least 5 points under the threshold). */
  landingTokens: number
  /** `lasting_landing`: under a write premium an execute pass may land below `landingTokens` (`lasting-landing.ts`). */
  lastingLanding: boolean
  /**
   * The line the history of an emergency pass never pushes the prompt over, whatever the floors: the drain's exit (10
   * points under the threshold), at least the landing line. Floors yield there, oldest first (`selectTiers`).
   */
  ceilingTokens: number
  /** The most the reminders of one epoch (nudges and the steer message) may hold: 1% of the usable window. */
  reminderBudgetTokens: number
  /** Where the window size came from. */
  source: "config" | "host" | "fallback" | "replay"
  /** The model's provider family and its prompt token prices (a per-model `prices` override applied). */
  family: ProviderFamily
  prices: TokenPrices
  /** The price list in force, where it came from, and a per-model override set aside (`price-lists.ts`). */
  priceList: Omit<PricesInForce, "prices">
  /** What the provider requires of the reasoning state the model returned (`session/reasoning-rules.ts`). */
  reasoning: ReasoningRule
  /** Where the reasoning rule came from: the config's per-model `reasoning`, or the table. */
  reasoningSource: ReasoningRuleSource
}

/**
 * Resolves the window of a model: a per-model config override first (the first matching pattern), then the
 * host's limits, then a fallback. The usable window is context minus min(output, 32,000), or, when the host reports
 * an input limit (and no override names a context), input minus min(20,000, that reserve): as OpenCode computes it.
 */
export function resolveWindow(options: {
  providerID: string
  modelID: string
  hostLimits: ModelLimits | null
  config: Config
  /** The API the host reaches the model through, where it says (OpenCode's `model.api.npm`, Pi's `api`). */
  hostApi?: string | null
  /** The provider family when the ids do not tell it (a replayed transcript that records no model), else from the ids. */
  family?: ProviderFamily
  /** A list named for this run (replay's `--price-list`): its own prices and cache lifetime, over the config's. */
  priceList?: PriceListName
}): WindowSettings {
  const { config, hostLimits } = options
  const override = modelOverride(config, options.providerID, options.modelID)
  const contextTokens = override?.context ?? hostLimits?.context ?? FALLBACK_CONTEXT
  const output = override?.output ?? hostLimits?.output ?? FALLBACK_OUTPUT
  const outputReserve = Math.min(output, OUTPUT_RESERVE_CAP)
  const input = override?.context === undefined ? hostLimits?.input : undefined
  const usableTokens = Math.max(1, input ? input - Math.min(INPUT_RESERVE_CAP, outputReserve) : contextTokens - outputReserve)
  const thresholdPercent = override?.execute_threshold ?? config.execute_threshold
  const family = options.family ?? providerFamily(options.providerID, options.modelID)
  const priceOverride: ModelOverride | null = options.priceList === undefined ? override : { price_list: options.priceList }
  // A list named in the config brings its cache lifetime; the family's lists leave the configured `cache_ttl`.
  const listTtl = priceOverride?.price_list === undefined ? undefined : PRICE_LISTS[priceOverride.price_list].cacheTtl
  return {
    usableTokens,
    contextTokens,
    outputReserve,
    thresholdPercent,
    ...budgets(usableTokens, thresholdPercent, config),
    cacheTtlMs: parseDurationMs((options.priceList === undefined ? override?.cache_ttl : undefined) ?? listTtl ?? config.cache_ttl),
    ...protectedSettings(config, usableTokens),
    source: override?.context !== undefined ? "config" : hostLimits ? "host" : "fallback",
    ...pricing({
      family,
      override: priceOverride,
      pattern: options.priceList === undefined ? modelPattern(config, override) : null,
      replay: options.family !== undefined,
    }),
    ...reasoningRule(options, override),
  }
}

/** The model's reasoning rule: the config's per-model `reasoning` first, else the table's row for its API and id. */
function reasoningRule(
  model: { providerID: string; modelID: string; hostApi?: string | null },
  override: ModelOverride | null,
): Pick<WindowSettings, "reasoning" | "reasoningSource"> {
  if (override?.reasoning !== undefined) return { reasoning: reasoningRuleById(override.reasoning), reasoningSource: "config" }
  return { reasoning: reasoningRuleFor(reasoningApi(model), model.modelID), reasoningSource: "table" }
}

/** The limits of a host model record: context and output, and its input limit when it has one. */
export function hostModelLimits(limit: { context: number; output: number }): ModelLimits {
  const input = (limit as { input?: unknown }).input
  return typeof input === "number" && input > 0
    ? { context: limit.context, output: limit.output, input }
    : { context: limit.context, output: limit.output }
}

/**
 * A window given directly (the CLI's `--window`, the Lab): the usable size, with the config's other settings. The
 * prices are those the config gives the session's model (`model`; absent: a replay's "replay/unknown", which a `*`
 * pattern matches): its per-model `price_list` (bringing its cache lifetime) and `prices`, else OpenAI's list, as the
 * Lab's estimates are priced. `priceList` (`--price-list`, `lab cost`) names the list the engine decides under, over
 * the config's.
 */
export function fixedWindow(options: {
  usableTokens: number
  thresholdPercent?: number
  config: Config
  priceList?: PriceListName
  model?: { providerID: string; modelID: string }
}): WindowSettings {
  const { usableTokens, config, priceList } = options
  const thresholdPercent = options.thresholdPercent ?? config.execute_threshold
  const model = options.model ?? REPLAY_MODEL
  const configured = modelOverride(config, model.providerID, model.modelID)
  // Only the override's prices count: the window and the threshold are given.
  const override: ModelOverride | null =
    priceList !== undefined
      ? { price_list: priceList }
      : configured?.price_list !== undefined || configured?.prices !== undefined
        ? { price_list: configured.price_list, prices: configured.prices }
        : null
  const named = override?.price_list
  return {
    usableTokens,
    contextTokens: usableTokens,
    outputReserve: 0,
    thresholdPercent,
    ...budgets(usableTokens, thresholdPercent, config),
    cacheTtlMs: parseDurationMs(named === undefined ? config.cache_ttl : PRICE_LISTS[named].cacheTtl),
    ...protectedSettings(config, usableTokens),
    source: "replay",
    // No provider: a replay prices its requests under OpenAI's list, as the Lab's estimates do, unless told another.
    ...pricing({ family: "openai", override, pattern: priceList === undefined ? modelPattern(config, configured) : null, replay: true }),
    reasoning: NO_REASONING_RULE,
    reasoningSource: "table",
  }
}

/**
 * The prices in force for the family and the model's override (`resolvePrices`); a set-aside override names its key. A
 * replay without a provider (`replay`) runs under the family it was given, and says so, unless the config names a list.
 */
function pricing(options: {
  family: ProviderFamily
  override: ModelOverride | null
  pattern: string | null
  replay: boolean
}): Pick<WindowSettings, "family" | "prices" | "priceList"> {
  const { family, override, pattern } = options
  const { prices, ...priceList } = resolvePrices({ family, override })
  const problem = priceList.problem === null ? null : `models.${pattern ?? "?"}.prices: ${priceList.problem}`
  const origin = options.replay && priceList.origin === "family" ? "replay" : priceList.origin
  return { family, prices, priceList: { ...priceList, origin, problem } }
}

/** The model a replay runs as when its transcript records none. */
export const REPLAY_MODEL = { providerID: "replay", modelID: "unknown" } as const

/** The pattern of the config's per-model override (the key `modelOverride` matched), or null. */
function modelPattern(config: Config, override: ModelOverride | null): string | null {
  if (override === null) return null
  return Object.entries(config.models).find(([, value]) => value === override)?.[0] ?? null
}

/** A window's protected-window clamp (what was configured, what is used, of which window), or null. */
export function protectedClamp(window: WindowSettings): { clampedFrom: number; tokens: number; usableTokens: number } | null {
  if (window.protectedClampedFrom === null) return null
  return { clampedFrom: window.protectedClampedFrom, tokens: window.protectedTokens, usableTokens: window.usableTokens }
}

/**
 * The configured `history_landing` when it is not at least LANDING_MARGIN_POINTS under the window's threshold (the
 * line used is then the threshold less the margin), or null: the user hears that the value was clamped and to what.
 */
export function landingClamp(window: WindowSettings, config: Config): { configured: number; used: number; thresholdPercent: number } | null {
  const used = window.thresholdPercent - LANDING_MARGIN_POINTS
  return config.history_landing > used ? { configured: config.history_landing, used, thresholdPercent: window.thresholdPercent } : null
}

/** What is said of a clamped `history_landing`. */
export function landingClampMessage(clamp: { configured: number; used: number; thresholdPercent: number }): string {
  return (
    `history_landing ${clamp.configured}% is not ${LANDING_MARGIN_POINTS} points under the execute threshold ` +
    `(${clamp.thresholdPercent}%): execute passes land at ${clamp.used}% of the usable window`
  )
}

/** The landing line stays at least this many points under the execute threshold. */
export const LANDING_MARGIN_POINTS = 5
/** The reminders of one epoch hold at most this share of the usable window. */
export const REMINDER_BUDGET_SHARE = 0.01

function protectedSettings(config: Config, usableTokens: number): Pick<WindowSettings, "protectedTokens" | "protectedClampedFrom"> {
  const { tokens, clampedFrom } = protectedWindow({ configured: config.protected_tokens, usableTokens })
  return { protectedTokens: tokens, protectedClampedFrom: clampedFrom }
}

type Budgets = Pick<
  WindowSettings,
  "historyBudgetTokens" | "pinBudgetTokens" | "landingTokens" | "lastingLanding" | "ceilingTokens" | "reminderBudgetTokens"
>

/** The history and pin budgets (shares of the tokens at the execute threshold), the landing and ceiling lines. */
function budgets(usableTokens: number, thresholdPercent: number, config: Config): Budgets {
  const atThreshold = (usableTokens * thresholdPercent) / 100
  const landingPercent = Math.min(config.history_landing, thresholdPercent - LANDING_MARGIN_POINTS)
  const linePercent = (percent: number): number => Math.max(0, Math.round((usableTokens * percent) / 100))
  return {
    historyBudgetTokens: Math.round((atThreshold * config.history_budget) / 100),
    pinBudgetTokens: Math.round((atThreshold * config.pin_budget) / 100),
    landingTokens: linePercent(landingPercent),
    lastingLanding: config.lasting_landing,
    ceilingTokens: linePercent(Math.max(landingPercent, drainExitPercent(thresholdPercent))),
    reminderBudgetTokens: Math.round(usableTokens * REMINDER_BUDGET_SHARE),
  }
}

/** The first per-model override whose pattern matches "provider/model" or "model". */
export function modelOverride(config: Config, providerID: string, modelID: string): ModelOverride | null {
  const qualified = `${providerID}/${modelID}`.toLowerCase()
  const bare = modelID.toLowerCase()
  for (const [pattern, override] of Object.entries(config.models)) {
    const matcher = new RegExp(`^${pattern.toLowerCase().replace(/[.+?^${}()|[\]\\]/g, "\\$&").replace(/\*/g, ".*")}$`)
    if (matcher.test(qualified) || matcher.test(bare)) return override
  }
  return null
}
