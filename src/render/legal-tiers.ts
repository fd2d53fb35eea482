import { TIERS, tierRank, type Tier } from "../historian/fidelity-types.js"
import type { SelectableCompartment } from "./selectable-compartment.js"

/** The tiers a compartment may be shown at, most detailed first. */
export function legalTiers(compartment: SelectableCompartment): Tier[] {
  const available = TIERS.filter((tier) => compartment.tiers[tier] !== undefined)
  if (compartment.floor === "none" || compartment.floor === "exact") return available
  const floorRank = tierRank(compartment.floor)
  const legal = available.filter((tier) => tierRank(tier) >= floorRank)
  // A floor above every tier the content supports leaves the most detailed one.
  return legal.length > 0 ? legal : available.slice(0, 1)
}

/** True when `tier` is below what the compartment's floor allows. */
export function isBelowFloor(compartment: SelectableCompartment, tier: Tier | "omitted"): boolean {
  return belowFloorOf(compartment, tier, () => legalTiers(compartment))
}

/** `isBelowFloor` with the compartment's legal tiers from `legal` (a selection works them out once). */
export function belowFloorOf(compartment: SelectableCompartment, tier: Tier | "omitted", legal: () => readonly Tier[]): boolean {
  if (compartment.floor === "none") return false
  if (tier === "omitted") return true
  if (compartment.floor === "exact") return false
  return !legal().includes(tier)
}

/**
 * The choices a compartment may take this selection, most detailed first: its legal tiers; one whose floors yielded
 * to the ceiling also every tier down to the one applied, or its omission.
 */
export function rangeOf(compartment: SelectableCompartment, legal: readonly Tier[]): readonly (Tier | "omitted")[] {
  const { current } = compartment
  if (compartment.yielded !== true || current === null) return legal
  const available = TIERS.filter((tier) => compartment.tiers[tier] !== undefined)
  if (current === "omitted") return [...available, "omitted"]
  if (!available.includes(current)) return legal
  return available.filter((tier) => legal.includes(tier) || tierRank(tier) >= tierRank(current))
}
