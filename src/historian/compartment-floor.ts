import { TIERS, tierRank, type Fact, type Floor, type Tier } from "./fidelity-types.js"

/**
 * The lowest tier a compartment may be shown at: the most detailed floor among its facts. Pinned facts (floor
 * `exact`) do not count, because the pinned ledger renders them verbatim whatever tier their compartment is at;
 * facts that may disappear (`none`) do not either. A compartment with nothing else may go down to its anchor.
 */
export function compartmentFloor(facts: readonly Fact[]): Tier {
  let floor: Tier = "anchor"
  for (const fact of facts) {
    const factFloor: Floor = fact.floor
    if (factFloor === "exact" || factFloor === "none") continue
    if (tierRank(factFloor) > tierRank(floor)) floor = factFloor
  }
  return floor
}

/** True when `tier` is at or above `floor`. */
export function meetsFloor(tier: Tier, floor: Tier): boolean {
  return tierRank(tier) >= tierRank(floor)
}

/** Tiers from most to least detailed (re-exported for callers that iterate them). */
export const TIER_ORDER: readonly Tier[] = TIERS
