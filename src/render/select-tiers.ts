import { TIERS, tierRank, type Tier } from "../historian/fidelity-types.js"
import { selectByAge, selectByOracle, selectFlat, selectTruncated } from "./comparison-policies.js"
import { belowFloorOf, legalTiers, rangeOf } from "./legal-tiers.js"
import type { SelectableCompartment, SelectionPolicy, TierChoice } from "./selectable-compartment.js"

export { isBelowFloor, legalTiers } from "./legal-tiers.js"
export type { SelectableCompartment, SelectionPolicy, TierChoice } from "./selectable-compartment.js"

/** Demotion starts when history exceeds the budget and goes down to this share of it ... */
export const DEMOTE_TARGET_SHARE = 0.85
/** ... promotion starts only below this share, and stops before this one: pressure hovering at a line cannot flip tiers. */
export const PROMOTE_START_SHARE = 0.6
export const PROMOTE_TARGET_SHARE = 0.75
/**
 * A step down that frees less than this share of the episode's tokens buys almost no room for the detail it drops (a
 * COMPACT record nearly as long as a short FULL episode loses the narrative's reasons for a few tokens): within its
 * level it comes after every other step.
 */
export const POOR_STEP_SHARE = 0.1
/** The reasons of the choices floors yielded to the ceiling, and of a compartment that keeps such a choice. */
export const YIELDED_REASON = "below floor: history over the window's ceiling"
export const OMITTED_REASON = "omitted: history over the window's ceiling at the anchors"
export const KEPT_YIELDED_REASON = "kept: floors yielded to the ceiling"
export const PROMOTED_YIELDED_REASON = "promoted: room in the budget, still below its floor since floors yielded"

/** True for the reason of a choice that leaves a compartment where floors yielded (kept so by later selections). */
export function isYieldedReason(reason: string): boolean {
  return reason === YIELDED_REASON || reason === OMITTED_REASON || reason === PROMOTED_YIELDED_REASON
}

/** A compartment this relevant is demoted last and promoted first. */
export const RELEVANT = 0.5

/**
 * Selects one tier per compartment, deterministically and without a model, in three separate steps:
 * 1. legal range: the tiers the compartment has, not below its floor (a policy may only choose among those);
 * 2. desired tier: a session under budget keeps what it has (new compartments start at their most detailed legal
 *    tier); over budget, compartments are demoted level by level (first every full one to the next
 *    legal tier, then every dense one, then every compact one; within a level the least relevant first, then the
 *    smallest step, then the oldest),
 *    never below a floor, until history is at DEMOTE_TARGET_SHARE of the budget; far under budget (below PROMOTE_START_SHARE), the newest and
 *    most relevant are promoted back up while staying under PROMOTE_TARGET_SHARE. Budget pressure creates the need;
 *    age and relevance only set the order;
 * 3. the safe application boundary is the caller's: selections change only on execute passes.
 * Floors win over the budget, not over the window: when the compartments at their floors exceed `ceilingTokens`
 * (the room the window leaves history), floors yield, oldest and least relevant first, level by level down to the
 * anchor, and then the oldest are omitted (those holding condensed pins last), until history fits (each such choice is
 * `belowFloor`).
 * Compartments are given oldest first. The comparison policies ignore floors on purpose (to be measured).
 */
export function selectTiers(options: {
  compartments: readonly SelectableCompartment[]
  budgetTokens: number
  /** The most the default policy's history may use whatever the floors (absent: no limit) ... */
  ceilingTokens?: number
  /**
   * ... once floors alone would take it past this (absent: the ceiling itself): floors yield only when holding them
   * would leave the prompt overflowing, and then down to the ceiling.
   */
  overflowTokens?: number
  policy: SelectionPolicy
}): TierChoice[] {
  switch (options.policy) {
    case "default":
      return selectByBudget(options.compartments, options.budgetTokens, {
        ceiling: options.ceilingTokens ?? Number.POSITIVE_INFINITY,
        overflow: options.overflowTokens ?? options.ceilingTokens ?? Number.POSITIVE_INFINITY,
      })
    case "age-only":
      return selectByAge(options.compartments)
    case "flat":
      return selectFlat(options.compartments, options.budgetTokens)
    case "truncation":
      return selectTruncated(options.compartments, options.budgetTokens)
    case "oracle":
      return selectByOracle(options.compartments)
  }
}

/** The rank of a choice: a tier's, and -1 for an omission. */
function rankOf(choice: Tier | "omitted"): number {
  return choice === "omitted" ? -1 : tierRank(choice)
}

function selectByBudget(
  compartments: readonly SelectableCompartment[],
  budget: number,
  limits: { ceiling: number; overflow: number },
): TierChoice[] {
  const { ceiling } = limits
  // Each compartment's legal tiers, worked out once (the floor checks below read them for every compartment).
  const floorLegal = compartments.map(legalTiers)
  const belowFloor = (index: number, tier: Tier | "omitted"): boolean =>
    belowFloorOf(compartments[index] as SelectableCompartment, tier, () => floorLegal[index] ?? [])
  const legal = compartments.map((compartment, index) => rangeOf(compartment, floorLegal[index] ?? []))
  const chosen: (Tier | "omitted")[] = compartments.map((compartment, index) => {
    const options = legal[index] ?? []
    if (compartment.current !== null && options.includes(compartment.current)) return compartment.current
    // A new compartment enters below FULL (the raw source): FULL is earned by promotion, when history has room.
    return (options[0] === "full" ? options[1] : undefined) ?? options[0] ?? "anchor"
  })
  const reasons: string[] = compartments.map((compartment, index) => {
    if (compartment.current === null) return "new"
    if (chosen[index] !== compartment.current) return "floor"
    return belowFloor(index, compartment.current) ? KEPT_YIELDED_REASON : "kept"
  })
  const tokensOf = (index: number): number => {
    const tier = chosen[index]
    return tier === undefined || tier === "omitted" ? 0 : (compartments[index]?.tiers[tier] ?? 0)
  }
  let total = compartments.reduce((sum, _, index) => sum + tokensOf(index), 0)

  // Oldest first, relevant ones last (only promotion and the ceiling read it).
  const demoteOrder = (): number[] =>
    compartments
      .map((compartment, index) => ({ index, relevant: compartment.relevance >= RELEVANT }))
      .sort((a, b) => Number(a.relevant) - Number(b.relevant) || a.index - b.index)
      .map((entry) => entry.index)
  if (total > budget) {
    // Level by level (seed: narrative decays first, line numbers before names): every compartment above dense
    // loses its narrative before any loses its line numbers, and so on; within a level, least relevant first, then
    // the smallest step first (it loses least), oldest first among equal steps.
    for (const level of TIERS.slice(0, -1)) {
      const order = stepOrder({
        count: compartments.length,
        relevant: (index) => (compartments[index]?.relevance ?? 0) >= RELEVANT,
        gain: (index) => stepGain(chosen[index], legal[index] ?? [], compartments[index]?.tiers ?? {}),
        tokens: tokensOf,
      })
      for (const index of order) {
        if (total <= budget * DEMOTE_TARGET_SHARE) break
        const options = legal[index] ?? []
        while (rankOf(chosen[index] as Tier) >= tierRank(level)) {
          const lower = options[options.indexOf(chosen[index] as Tier) + 1]
          // Demotion never omits: only the ceiling does.
          if (lower === undefined || lower === "omitted") break
          total -= tokensOf(index)
          chosen[index] = lower
          total += tokensOf(index)
          reasons[index] = "demoted: history over budget"
        }
      }
    }
  } else if (total < budget * PROMOTE_START_SHARE) {
    const promoteOrder = demoteOrder().reverse()
    let progressed = true
    while (progressed) {
      progressed = false
      for (const index of promoteOrder) {
        const options = legal[index] ?? []
        const position = options.indexOf(chosen[index] as Tier)
        const higher = position > 0 ? options[position - 1] : undefined
        if (higher === undefined || higher === "omitted") continue
        const delta = (compartments[index]?.tiers[higher] ?? 0) - tokensOf(index)
        if (total + delta > budget * PROMOTE_TARGET_SHARE) continue
        chosen[index] = higher
        total += delta
        const promoted = belowFloor(index, higher) ? PROMOTED_YIELDED_REASON : "promoted: room in the budget"
        reasons[index] = compartments[index]?.current === null ? "new" : promoted
        progressed = true
      }
    }
  }
  if (total > Math.max(ceiling, limits.overflow)) {
    const order = demoteOrder()
    const omitOrder = [...order].sort((a, b) => Number(compartments[a]?.holdsPins === true) - Number(compartments[b]?.holdsPins === true))
    yieldFloors({ compartments, chosen, reasons, order, omitOrder, total, ceiling, tokensOf })
  }
  return compartments.map((compartment, index) => ({
    id: compartment.id,
    tier: chosen[index] as Tier | "omitted",
    reason: compartment.relevance >= RELEVANT && reasons[index] === "kept" ? "kept: relevant again" : (reasons[index] ?? "kept"),
    belowFloor: belowFloor(index, chosen[index] as Tier | "omitted"),
  }))
}

/**
 * The order of one level's demotions: least relevant first, then the compartment whose next step frees the fewest
 * tokens, then the oldest. A small step (a DENSE barely longer than its COMPACT) loses little detail; taking those
 * first keeps the room for the episodes where a step loses most (a read document's limits, a plan's schema), whatever
 * their age: demoting the oldest first lost long-range facts in the Lab.
 */
function stepOrder(options: {
  count: number
  relevant: (index: number) => boolean
  gain: (index: number) => number
  tokens: (index: number) => number
}): number[] {
  const indexes = Array.from({ length: options.count }, (_, index) => index)
  const gains = indexes.map(options.gain)
  const poor = indexes.map((index) => (gains[index] ?? 0) < options.tokens(index) * POOR_STEP_SHARE)
  return indexes.sort(
    (a, b) =>
      Number(options.relevant(a)) - Number(options.relevant(b)) ||
      Number(poor[a]) - Number(poor[b]) ||
      (gains[a] ?? 0) - (gains[b] ?? 0) ||
      a - b,
  )
}

/** Tokens the next step down from the chosen tier frees (0 when there is no legal lower tier). */
function stepGain(chosen: Tier | "omitted" | undefined, options: readonly (Tier | "omitted")[], tiers: Partial<Record<Tier, number>>): number {
  if (chosen === undefined || chosen === "omitted") return 0
  const lower = options[options.indexOf(chosen) + 1]
  if (lower === undefined || lower === "omitted") return 0
  return (tiers[chosen] ?? 0) - (tiers[lower] ?? 0)
}

/**
 * The last resort when the floors alone exceed the ceiling: level by level (every compartment above dense to its next
 * tier, then every dense one, then every compact one to its anchor), in `order`, whatever the floors; then the
 * compartments in `omitOrder` are omitted. Stops as soon as history fits. Mutates `chosen` and `reasons` (the caller's
 * working arrays).
 */
function yieldFloors(options: {
  compartments: readonly SelectableCompartment[]
  chosen: (Tier | "omitted")[]
  reasons: string[]
  order: readonly number[]
  omitOrder: readonly number[]
  total: number
  ceiling: number
  tokensOf: (index: number) => number
}): void {
  const { compartments, chosen, reasons, order, ceiling, tokensOf } = options
  let total = options.total
  for (const level of TIERS.slice(0, -1)) {
    for (const index of order) {
      if (total <= ceiling) return
      const available = TIERS.filter((tier) => compartments[index]?.tiers[tier] !== undefined)
      const tier = chosen[index] as Tier | "omitted"
      if (tier === "omitted" || tierRank(tier) < tierRank(level)) continue
      const lower = available[available.indexOf(tier) + 1]
      if (lower === undefined) continue
      total -= tokensOf(index)
      chosen[index] = lower
      total += tokensOf(index)
      reasons[index] = YIELDED_REASON
    }
  }
  for (const index of options.omitOrder) {
    if (total <= ceiling) return
    if (chosen[index] === "omitted") continue
    total -= tokensOf(index)
    chosen[index] = "omitted"
    reasons[index] = OMITTED_REASON
  }
}
