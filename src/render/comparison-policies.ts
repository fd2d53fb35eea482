import { TIERS, type Tier } from "../historian/fidelity-types.js"
import { isBelowFloor } from "./legal-tiers.js"
import type { SelectableCompartment, TierChoice } from "./selectable-compartment.js"

/** The naive baseline the seed names: older is automatically shorter, whatever the floors or the budget. */
export function selectByAge(compartments: readonly SelectableCompartment[]): TierChoice[] {
  const count = compartments.length
  return compartments.map((compartment, index) => {
    const age = count - 1 - index
    const wanted: Tier = age < 2 ? "full" : age < 4 ? "dense" : age < 8 ? "compact" : "anchor"
    const tier = nearestAvailable(compartment, wanted)
    return { id: compartment.id, tier, reason: `age ${age}`, belowFloor: isBelowFloor(compartment, tier) }
  })
}

/** One uniform level for everything settled: the most detailed tier at which the whole history fits. */
export function selectFlat(compartments: readonly SelectableCompartment[], budget: number): TierChoice[] {
  const level =
    TIERS.find((tier) => compartments.reduce((sum, compartment) => sum + (compartment.tiers[nearestAvailable(compartment, tier)] ?? 0), 0) <= budget) ??
    "anchor"
  return compartments.map((compartment) => {
    const tier = nearestAvailable(compartment, level)
    return { id: compartment.id, tier, reason: `flat at ${level}`, belowFloor: isBelowFloor(compartment, tier) }
  })
}

/** Drop the oldest: the newest compartments at their most detailed tier, as many as fit. */
export function selectTruncated(compartments: readonly SelectableCompartment[], budget: number): TierChoice[] {
  let total = 0
  const kept = new Set<number>()
  for (let index = compartments.length - 1; index >= 0; index -= 1) {
    const compartment = compartments[index] as SelectableCompartment
    const tokens = compartment.tiers[nearestAvailable(compartment, "full")] ?? 0
    if (total + tokens > budget) break
    total += tokens
    kept.add(index)
  }
  return compartments.map((compartment, index) => {
    const tier = kept.has(index) ? nearestAvailable(compartment, "full") : "omitted"
    return { id: compartment.id, tier, reason: kept.has(index) ? "newest, fits" : "truncated", belowFloor: isBelowFloor(compartment, tier) }
  })
}

/** The least detailed tier that still carries what will be needed (the most detailed when none does). */
export function selectByOracle(compartments: readonly SelectableCompartment[]): TierChoice[] {
  return compartments.map((compartment) => {
    const available = TIERS.filter((tier) => compartment.tiers[tier] !== undefined)
    const carries = compartment.carriesNeeds ?? (() => true)
    const tier = [...available].reverse().find((candidate) => carries(candidate)) ?? available[0] ?? "anchor"
    return { id: compartment.id, tier, reason: "oracle", belowFloor: isBelowFloor(compartment, tier) }
  })
}

/** The wanted tier, or the nearest less detailed one the compartment has (anchor always exists). */
function nearestAvailable(compartment: SelectableCompartment, wanted: Tier): Tier {
  const from = TIERS.indexOf(wanted)
  return TIERS.slice(from).find((tier) => compartment.tiers[tier] !== undefined) ?? TIERS.slice(0, from).reverse().find((tier) => compartment.tiers[tier] !== undefined) ?? "anchor"
}
