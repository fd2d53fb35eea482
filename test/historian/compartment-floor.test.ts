import { describe, expect, it } from "vitest"
import { compartmentFloor, meetsFloor, TIER_ORDER } from "../../src/historian/compartment-floor.js"
import {
  FLOOR_BY_KIND,
  RETENTION_BY_KIND,
  TIERS,
  tierRank,
  type Fact,
  type FactKind,
  type Floor,
  type Tier,
} from "../../src/historian/fidelity-types.js"

function fact(kind: FactKind, floor: Floor = FLOOR_BY_KIND[kind]): Fact {
  const source = { tags: [1], messageIds: ["m1"] }
  return { kind, text: `${kind} fact`, retention: RETENTION_BY_KIND[kind], floor, source }
}

describe("compartmentFloor", () => {
  it("lets a compartment without facts go down to its anchor", () => {
    expect(compartmentFloor([])).toBe("anchor")
  })

  it.each<[string, Fact[], Tier]>([
    ["only incidental detail", [fact("incidental")], "anchor"],
    ["a decision", [fact("incidental"), fact("decision")], "compact"],
    ["an identifier and a location", [fact("identifier"), fact("location")], "compact"],
    ["a fact that must stay dense", [fact("decision"), fact("failure", "dense"), fact("incidental")], "dense"],
    ["a fact that must stay full", [fact("failure", "dense"), fact("open_work", "full")], "full"],
  ])("is the most detailed floor among its facts: %s", (_name, facts, expected) => {
    expect(compartmentFloor(facts)).toBe(expected)
  })

  it("ignores pinned facts: the pinned ledger keeps them verbatim whatever tier the compartment shows", () => {
    expect(compartmentFloor([fact("constraint"), fact("incidental")])).toBe("anchor")
    expect(compartmentFloor([fact("decision", "exact")])).toBe("anchor")
  })

  it("ignores facts that may disappear", () => {
    expect(compartmentFloor([fact("incidental", "none")])).toBe("anchor")
  })

  it("does not depend on the order of the facts", () => {
    const facts = [fact("incidental"), fact("failure", "dense"), fact("decision"), fact("constraint")]
    expect(compartmentFloor([...facts].reverse())).toBe(compartmentFloor(facts))
  })
})

describe("meetsFloor", () => {
  it.each<[Tier, Tier, boolean]>([
    ["full", "compact", true],
    ["dense", "compact", true],
    ["compact", "compact", true],
    ["anchor", "compact", false],
    ["anchor", "anchor", true],
    ["dense", "full", false],
    ["full", "full", true],
  ])("%s meets the floor %s: %s", (tier, floor, expected) => {
    expect(meetsFloor(tier, floor)).toBe(expected)
  })
})

describe("TIER_ORDER", () => {
  it("lists the tiers from most to least detailed", () => {
    expect(TIER_ORDER).toEqual(["full", "dense", "compact", "anchor"])
    expect(TIER_ORDER.map(tierRank)).toEqual([3, 2, 1, 0])
    expect(TIER_ORDER).toBe(TIERS)
  })
})

describe("FLOOR_BY_KIND", () => {
  it("keeps constraints exact, most kinds at compact and lets incidental detail fall to the anchor", () => {
    expect(FLOOR_BY_KIND).toEqual({
      constraint: "exact",
      decision: "compact",
      rejected_alternative: "compact",
      failure: "compact",
      identifier: "compact",
      location: "compact",
      open_work: "compact",
      incidental: "anchor",
    })
    for (const kind of Object.keys(FLOOR_BY_KIND) as FactKind[]) {
      expect(RETENTION_BY_KIND[kind] === "PIN").toBe(FLOOR_BY_KIND[kind] === "exact")
    }
  })
})
