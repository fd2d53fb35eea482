import { describe, expect, it } from "vitest"
import type { Floor, Tier } from "../../src/historian/fidelity-types.js"
import {
  DEMOTE_TARGET_SHARE,
  isBelowFloor,
  legalTiers,
  PROMOTE_START_SHARE,
  PROMOTE_TARGET_SHARE,
  RELEVANT,
  selectTiers,
  type SelectableCompartment,
  type TierChoice,
} from "../../src/render/select-tiers.js"

/** Every tier present: full 100, dense 60, compact 30, anchor 10. */
const FOUR: Partial<Record<Tier, number>> = { full: 100, dense: 60, compact: 30, anchor: 10 }

function compartment(id: string, overrides: Partial<SelectableCompartment> = {}): SelectableCompartment {
  return { id, tiers: FOUR, floor: "anchor", relevance: 0, current: null, ...overrides }
}

/** Four compartments, oldest first, each with all four tiers and the given current tiers. */
function four(
  current: (Tier | null)[] = [null, null, null, null],
  overrides: Partial<SelectableCompartment>[] = [],
): SelectableCompartment[] {
  return current.map((tier, index) => compartment(`c${index + 1}`, { current: tier, ...overrides[index] }))
}

/** Four compartments, oldest first, already applied at full (demotion order is about applied tiers, not new ones). */
const fourAtFull = (overrides: Partial<SelectableCompartment>[] = []): SelectableCompartment[] =>
  four(["full", "full", "full", "full"], overrides)

const tiersOf = (choices: readonly TierChoice[]): string[] => choices.map((choice) => choice.tier)

const totalOf = (compartments: readonly SelectableCompartment[], choices: readonly TierChoice[]): number =>
  choices.reduce((sum, choice, index) => {
    if (choice.tier === "omitted") return sum
    return sum + (compartments[index]?.tiers[choice.tier] ?? 0)
  }, 0)

describe("legalTiers", () => {
  it.each<[string, Partial<Record<Tier, number>>, Floor, Tier[]]>([
    ["every tier, floor anchor", FOUR, "anchor", ["full", "dense", "compact", "anchor"]],
    ["every tier, floor compact", FOUR, "compact", ["full", "dense", "compact"]],
    ["every tier, floor dense", FOUR, "dense", ["full", "dense"]],
    ["every tier, floor full", FOUR, "full", ["full"]],
    ["every tier, floor exact (pins live in the ledger)", FOUR, "exact", ["full", "dense", "compact", "anchor"]],
    ["every tier, floor none", FOUR, "none", ["full", "dense", "compact", "anchor"]],
    ["no dense tier, floor dense", { full: 100, compact: 30, anchor: 10 }, "dense", ["full"]],
    ["no full or dense, floor compact", { compact: 30, anchor: 10 }, "compact", ["compact"]],
    ["a floor above every tier the content has", { compact: 30, anchor: 10 }, "dense", ["compact"]],
    ["only an anchor, floor compact", { anchor: 10 }, "compact", ["anchor"]],
    ["only an anchor, floor anchor", { anchor: 10 }, "anchor", ["anchor"]],
  ])("gives %s", (_name, tiers, floor, expected) => {
    expect(legalTiers(compartment("c1", { tiers, floor }))).toEqual(expected)
  })

  it("never offers a tier the compartment does not have", () => {
    const gapped = compartment("c1", { tiers: { full: 100, anchor: 10 }, floor: "none" })
    expect(legalTiers(gapped)).toEqual(["full", "anchor"])
  })
})

describe("isBelowFloor", () => {
  it.each<[Floor, Tier | "omitted", boolean]>([
    ["compact", "full", false],
    ["compact", "compact", false],
    ["compact", "anchor", true],
    ["compact", "omitted", true],
    ["dense", "compact", true],
    ["full", "dense", true],
    ["anchor", "anchor", false],
    ["anchor", "omitted", true],
    ["exact", "anchor", false],
    ["exact", "omitted", true],
    ["none", "anchor", false],
    ["none", "omitted", false],
  ])("with floor %s, %s is below it: %s", (floor, tier, expected) => {
    expect(isBelowFloor(compartment("c1", { floor }), tier)).toBe(expected)
  })

  it("accepts the most detailed tier when the floor is above every tier the content has", () => {
    const only = compartment("c1", { tiers: { compact: 30, anchor: 10 }, floor: "full" })
    expect([isBelowFloor(only, "compact"), isBelowFloor(only, "anchor")]).toEqual([false, true])
  })
})

describe("selectTiers", () => {
  it("uses separate demote and promote lines", () => {
    expect({ DEMOTE_TARGET_SHARE, PROMOTE_START_SHARE, PROMOTE_TARGET_SHARE, RELEVANT }).toEqual({
      DEMOTE_TARGET_SHARE: 0.85,
      PROMOTE_START_SHARE: 0.6,
      PROMOTE_TARGET_SHARE: 0.75,
      RELEVANT: 0.5,
    })
  })

  describe("with the default policy", () => {
    it("shows new compartments at their most detailed legal tier and demotes nothing in a quiet session", () => {
      const compartments = [
        compartment("c1"),
        compartment("c2", { tiers: { dense: 60, compact: 30, anchor: 10 } }),
        compartment("c3", { tiers: { compact: 30, anchor: 10 }, floor: "compact" }),
      ]
      const choices = selectTiers({ compartments, budgetTokens: 100_000, policy: "default" })
      expect(choices).toEqual([
        { id: "c1", tier: "full", reason: "new", belowFloor: false },
        { id: "c2", tier: "dense", reason: "new", belowFloor: false },
        { id: "c3", tier: "compact", reason: "new", belowFloor: false },
      ])
    })

    it.each<[string, number, Tier]>([
      // dense 60 of 80 (75%): between the promote and the demote lines, nothing moves.
      ["75% of the budget: stays at dense", 80, "dense"],
      // 60 of 133 is under 60%, but full (100) would pass 75% (99.75).
      ["under 60%, full does not fit under 75%: stays at dense", 133, "dense"],
      // 60 of 134 is under 60% and full (100) stays under 75% (100.5).
      ["under 60%, full fits under 75%: promoted to full", 134, "full"],
    ])(
      "enters a new compartment with full, dense and compact at dense, promoted to full in the same selection: %s",
      (_name, budget, expected) => {
        const compartments = [compartment("c1", { tiers: { full: 100, dense: 60, compact: 30 } })]
        expect(selectTiers({ compartments, budgetTokens: budget, policy: "default" })).toEqual([
          { id: "c1", tier: expected, reason: "new", belowFloor: false },
        ])
      },
    )

    it("enters a new compartment at full when its floor leaves it nothing else", () => {
      // Full and anchor, floor compact: full is the only legal tier. 100 of 150 (67%) is between the lines: it enters
      // at full, no promotion puts it there.
      const compartments = [compartment("c1", { tiers: { full: 100, anchor: 10 }, floor: "compact" })]
      expect(selectTiers({ compartments, budgetTokens: 150, policy: "default" })).toEqual([
        { id: "c1", tier: "full", reason: "new", belowFloor: false },
      ])
    })

    it("keeps the applied tiers of a quiet session, however old the compartments are", () => {
      const compartments = four(["full", "dense", "full", "compact"])
      // 100 + 60 + 100 + 30 = 290 of a 400 budget: 72.5%, between the promote and the demote lines.
      const choices = selectTiers({ compartments, budgetTokens: 400, policy: "default" })
      expect(tiersOf(choices)).toEqual(["full", "dense", "full", "compact"])
      expect(choices.map((choice) => choice.reason)).toEqual(["kept", "kept", "kept", "kept"])
    })

    it("demotes level by level, oldest first among equal steps, until history is at 85% of the budget", () => {
      const compartments = fourAtFull()
      // 400 tokens at full, budget 340: demote to <= 289. Every full one loses its narrative before any goes lower.
      const choices = selectTiers({ compartments, budgetTokens: 340, policy: "default" })
      expect(tiersOf(choices)).toEqual(["dense", "dense", "dense", "full"])
      expect(totalOf(compartments, choices)).toBe(280)
      expect(choices.map((choice) => choice.reason)).toEqual([
        "demoted: history over budget",
        "demoted: history over budget",
        "demoted: history over budget",
        "kept",
      ])
      expect(choices.every((choice) => !choice.belowFloor)).toBe(true)
      // Budget 200 (target 170): all four reach dense (240), then the oldest goes on to compact (210), the next (180),
      // the third (150).
      expect(tiersOf(selectTiers({ compartments, budgetTokens: 200, policy: "default" }))).toEqual(["compact", "compact", "compact", "dense"])
    })

    it("demotes the smallest step of a level first, whatever the age: a big step keeps what a read document said", () => {
      // c1 (oldest) read a document: its dense holds 90 tokens more than its compact. c2..c4 are small exchanges (20).
      const tiers = (dense: number): Partial<Record<Tier, number>> => ({ dense, compact: dense - (dense > 100 ? 90 : 20), anchor: 10 })
      const compartments = [
        compartment("c1", { tiers: tiers(150), current: "dense" }),
        compartment("c2", { tiers: tiers(60), current: "dense" }),
        compartment("c3", { tiers: tiers(60), current: "dense" }),
        compartment("c4", { tiers: tiers(60), current: "dense" }),
      ]
      // 330 at dense, budget 320 (target 272): c2, c3 and c4 step down (20 each, to 270) before c1's 90 is touched;
      // oldest first would have taken c1 alone (240) and dropped its document lines.
      const choices = selectTiers({ compartments, budgetTokens: 320, policy: "default" })
      expect(tiersOf(choices)).toEqual(["dense", "compact", "compact", "compact"])
      expect(totalOf(compartments, choices)).toBe(270)
      // A relevant compartment still goes last, however small its step: c3, c4, then c1 (200).
      const relevantSmall = compartments.map((entry, index) => (index === 1 ? { ...entry, relevance: RELEVANT } : entry))
      expect(tiersOf(selectTiers({ compartments: relevantSmall, budgetTokens: 320, policy: "default" }))).toEqual([
        "compact",
        "dense",
        "compact",
        "compact",
      ])
    })

    it("takes a step that frees under a tenth of its episode after every other step of the level", () => {
      // c1 is a short exchange whose COMPACT record (120) is nearly as long as its FULL text (131): that step frees 11
      // tokens and loses the narrative's reasons. c2 and c3 step from 100 to 60.
      const compartments = [
        compartment("c1", { tiers: { full: 131, compact: 120, anchor: 31 }, current: "full" }),
        compartment("c2", { tiers: FOUR, current: "full" }),
        compartment("c3", { tiers: FOUR, current: "full" }),
      ]
      // 331 at full, budget 330 (target 280.5): c2 alone (291) is not enough, c2 and c3 (251) are, and c1 keeps its
      // FULL text (smallest step first alone would have taken c1's 11 tokens, then c2: compact, dense, full).
      const choices = selectTiers({ compartments, budgetTokens: 330, policy: "default" })
      expect(tiersOf(choices)).toEqual(["full", "dense", "dense"])
      // Once the other steps of the level are spent, it is taken too: budget 285 (target 242.25) after c2 and c3 (251).
      expect(tiersOf(selectTiers({ compartments, budgetTokens: 285, policy: "default" }))).toEqual(["compact", "dense", "dense"])
    })

    it("stops demoting as soon as history is at or under the demote target", () => {
      const compartments = fourAtFull()
      for (const budget of [300, 350, 399, 250, 150]) {
        const choices = selectTiers({ compartments, budgetTokens: budget, policy: "default" })
        const total = totalOf(compartments, choices)
        expect(total).toBeLessThanOrEqual(budget * DEMOTE_TARGET_SHARE)
        // One step less would still be above the target: the last demotion was needed.
        const demoted = choices.findLastIndex((choice) => choice.reason.startsWith("demoted"))
        const last = compartments[demoted]
        const tier = choices[demoted]?.tier as Tier
        const order: Tier[] = ["full", "dense", "compact", "anchor"]
        const higher = order[order.indexOf(tier) - 1] as Tier
        const undone = total - (last?.tiers[tier] ?? 0) + (last?.tiers[higher] ?? 0)
        expect(undone).toBeGreaterThan(budget * DEMOTE_TARGET_SHARE)
      }
    })

    it("never demotes below a floor: floors detain even when history stays over budget", () => {
      const floors = [{ floor: "compact" as const }, { floor: "dense" as const }, { floor: "full" as const }, {}]
      const compartments = four([null, null, null, null], floors)
      // Budget 100: target 85. Floors allow at best 30 + 60 + 100 + 10 = 200.
      const choices = selectTiers({ compartments, budgetTokens: 100, policy: "default" })
      expect(tiersOf(choices)).toEqual(["compact", "dense", "full", "anchor"])
      expect(totalOf(compartments, choices)).toBe(200)
      expect(choices.every((choice) => !choice.belowFloor)).toBe(true)
    })

    describe("over the ceiling (floors win over the budget, not over the window)", () => {
      const floors = [{ floor: "compact" as const }, { floor: "dense" as const }, { floor: "full" as const }, {}]

      it("lets floors yield, level by level and oldest first, until history fits the ceiling", () => {
        const compartments = four([null, null, null, null], floors)
        // At the floors: 30 + 60 + 100 + 10 = 200. Ceiling 150: c3 full -> dense (160), then c2 dense -> compact (130).
        const choices = selectTiers({ compartments, budgetTokens: 100, ceilingTokens: 150, policy: "default" })
        expect(tiersOf(choices)).toEqual(["compact", "compact", "dense", "anchor"])
        expect(totalOf(compartments, choices)).toBe(130)
        expect(choices.map((choice) => choice.belowFloor)).toEqual([false, true, true, false])
        expect(choices[1]?.reason).toBe("below floor: history over the window's ceiling")
      })

      it("holds the floors while held they stay under the overflow line, and yields down to the ceiling once they would not", () => {
        const compartments = four([null, null, null, null], floors)
        // At the floors: 200. Under an overflow line of 210 they hold (the prompt is over the ceiling but fits).
        const held = selectTiers({ compartments, budgetTokens: 100, ceilingTokens: 150, overflowTokens: 210, policy: "default" })
        expect(tiersOf(held)).toEqual(["compact", "dense", "full", "anchor"])
        expect(held.every((choice) => !choice.belowFloor)).toBe(true)
        // Over an overflow line of 190 they yield, and not just to 190: down to the ceiling (150), as without the line.
        const yielded = selectTiers({ compartments, budgetTokens: 100, ceilingTokens: 150, overflowTokens: 190, policy: "default" })
        expect(tiersOf(yielded)).toEqual(["compact", "compact", "dense", "anchor"])
        expect(totalOf(compartments, yielded)).toBe(130)
      })

      it("omits the oldest compartments once every one is at its anchor and history is still over", () => {
        const compartments = four([null, null, null, null], floors)
        // All anchors: 40. Ceiling 25: c1 and c2 go (20).
        const choices = selectTiers({ compartments, budgetTokens: 100, ceilingTokens: 25, policy: "default" })
        expect(tiersOf(choices)).toEqual(["omitted", "omitted", "anchor", "anchor"])
        expect(totalOf(compartments, choices)).toBe(20)
        expect(choices.slice(0, 3).every((choice) => choice.belowFloor)).toBe(true)
      })

      it("omits relevant compartments last", () => {
        const compartments = four([null, null, null, null], [{ relevance: 1 }])
        const choices = selectTiers({ compartments, budgetTokens: 10, ceilingTokens: 20, policy: "default" })
        expect(tiersOf(choices)).toEqual(["anchor", "omitted", "omitted", "anchor"])
      })

      it("omits compartments holding condensed pins last (a pin is the last thing to leave the prompt)", () => {
        const compartments = four([null, null, null, null], [{ holdsPins: true }, {}, { holdsPins: true }])
        const choices = selectTiers({ compartments, budgetTokens: 10, ceilingTokens: 20, policy: "default" })
        expect(tiersOf(choices)).toEqual(["anchor", "omitted", "anchor", "omitted"])
        expect(tiersOf(selectTiers({ compartments, budgetTokens: 10, ceilingTokens: 10, policy: "default" }))).toEqual([
          "omitted",
          "omitted",
          "anchor",
          "omitted",
        ])
      })

      it("keeps what floors yielded (a tier below the floor, or omitted) until promotion has room, then brings it back up", () => {
        const yielded = [
          { floor: "compact" as const, current: "omitted" as const, yielded: true },
          { floor: "compact" as const, current: "anchor" as const, yielded: true },
          { floor: "compact" as const, current: "compact" as const },
          { floor: "compact" as const, current: "compact" as const },
        ]
        const compartments = yielded.map((overrides, index) => compartment(`c${index + 1}`, overrides))
        // 10 + 30 + 30 = 70 of a budget of 100 (between the lines): no ceiling, nothing moves back above its floor.
        const kept = selectTiers({ compartments, budgetTokens: 100, policy: "default" })
        expect(tiersOf(kept)).toEqual(["omitted", "anchor", "compact", "compact"])
        expect(kept.map((choice) => choice.belowFloor)).toEqual([true, true, false, false])
        expect(kept.slice(0, 2).map((choice) => choice.reason)).toEqual(["kept: floors yielded to the ceiling", "kept: floors yielded to the ceiling"])
        // Far under budget: promoted, newest first, the omitted one back to its anchor and then up to its floor.
        const promoted = selectTiers({ compartments, budgetTokens: 1_000, policy: "default" })
        expect(tiersOf(promoted).every((tier) => tier !== "omitted" && tier !== "anchor")).toBe(true)
        expect(promoted.every((choice) => !choice.belowFloor)).toBe(true)
      })

      it("treats an applied tier below the floor that did not come from yielding as illegal (it moves up)", () => {
        const compartments = [compartment("c1", { current: "anchor", floor: "compact" })]
        expect(tiersOf(selectTiers({ compartments, budgetTokens: 100, policy: "default" }))).toEqual(["dense"])
      })

      it("changes nothing while the floors fit the ceiling", () => {
        const compartments = four([null, null, null, null], floors)
        const without = selectTiers({ compartments, budgetTokens: 100, policy: "default" })
        expect(selectTiers({ compartments, budgetTokens: 100, ceilingTokens: 200, policy: "default" })).toEqual(without)
      })
    })

    it("skips a compartment at its floor and demotes the next one", () => {
      const compartments = fourAtFull([{ floor: "full" }])
      const choices = selectTiers({ compartments, budgetTokens: 300, policy: "default" })
      // Target 255: c1 stays full; c2, c3, c4 go to dense (360, 320, 280), then c2 to compact (250).
      expect(tiersOf(choices)).toEqual(["full", "compact", "dense", "dense"])
      expect(choices[0]?.reason).toBe("kept")
    })

    it("demotes relevant compartments last", () => {
      const compartments = fourAtFull([{ relevance: 1 }, { relevance: RELEVANT }])
      // Target 289: c3 (360), c4 (320), then the relevant c1 (280); c2 keeps full.
      const choices = selectTiers({ compartments, budgetTokens: 340, policy: "default" })
      expect(tiersOf(choices)).toEqual(["dense", "full", "dense", "dense"])
    })

    it("treats relevance just under the line as not relevant", () => {
      const compartments = fourAtFull([{ relevance: RELEVANT - 0.01 }])
      const choices = selectTiers({ compartments, budgetTokens: 340, policy: "default" })
      expect(tiersOf(choices)).toEqual(["dense", "dense", "dense", "full"])
    })

    it("demotes a relevant compartment too once every other one is at its floor", () => {
      const held = { floor: "full" as const }
      const compartments = fourAtFull([{ relevance: 1 }, held, held, held])
      const choices = selectTiers({ compartments, budgetTokens: 380, policy: "default" })
      // Target 323: the others cannot move; c1 goes to dense (360), compact (330), anchor (310).
      expect(tiersOf(choices)).toEqual(["anchor", "full", "full", "full"])
    })

    it("says when a relevant compartment keeps its tier", () => {
      const compartments = four(["full", "dense", "full", "compact"], [{ relevance: 0.9 }])
      const choices = selectTiers({ compartments, budgetTokens: 400, policy: "default" })
      expect(choices.map((choice) => choice.reason)).toEqual(["kept: relevant again", "kept", "kept", "kept"])
    })

    it("promotes the newest and most relevant compartments first, up to 75% of the budget, far under budget", () => {
      const compartments = four(["anchor", "anchor", "anchor", "anchor"])
      // 40 of 300 (13%): promote while the total stays <= 225, one step per compartment per round, newest first.
      const choices = selectTiers({ compartments, budgetTokens: 300, policy: "default" })
      expect(tiersOf(choices)).toEqual(["compact", "dense", "dense", "dense"])
      expect(totalOf(compartments, choices)).toBe(210)
      expect(choices.map((choice) => choice.reason)).toEqual(Array(4).fill("promoted: room in the budget"))
    })

    it("promotes a relevant old compartment before newer ones", () => {
      const compartments = four(["anchor", "anchor", "anchor", "anchor"], [{ relevance: 1 }])
      const choices = selectTiers({ compartments, budgetTokens: 300, policy: "default" })
      // Round robin from c1 (relevant), then c4, c3, c2: the oldest irrelevant one is left at compact.
      expect(tiersOf(choices)).toEqual(["dense", "compact", "dense", "dense"])
      expect(totalOf(compartments, choices)).toBeLessThanOrEqual(300 * PROMOTE_TARGET_SHARE)
    })

    it.each<[string, number, string[]]>([
      // current: anchor, anchor, compact, full = 10 + 10 + 30 + 100 = 150
      // Target 125.8: the full one loses its narrative first (110), nothing else moves.
      ["101% of the budget: demotes", 148, ["anchor", "anchor", "compact", "dense"]],
      ["exactly at the budget: keeps", 150, ["anchor", "anchor", "compact", "full"]],
      ["about 85%: keeps", 176, ["anchor", "anchor", "compact", "full"]],
      ["61%: keeps", 246, ["anchor", "anchor", "compact", "full"]],
      ["exactly 60%: keeps", 250, ["anchor", "anchor", "compact", "full"]],
      // 150 < 150.6: promote up to 188.25, newest first: c3 to dense (180); c2 to compact would make 200.
      ["just under 60%: promotes", 251, ["anchor", "anchor", "dense", "full"]],
    ])("hysteresis at %s", (_name, budget, expected) => {
      const compartments = four(["anchor", "anchor", "compact", "full"])
      expect(tiersOf(selectTiers({ compartments, budgetTokens: budget, policy: "default" }))).toEqual(expected)
    })

    it("changes nothing while the history hovers anywhere between 60% and 100% of the budget", () => {
      const compartments = four(["anchor", "dense", "compact", "full"])
      const total = 10 + 60 + 30 + 100
      // From 100% of the budget (200) to just over 60% (333; 200 / 0.6 = 333.3).
      for (let budget = total; budget <= Math.floor(total / PROMOTE_START_SHARE); budget += 1) {
        const choices = selectTiers({ compartments, budgetTokens: budget, policy: "default" })
        expect(tiersOf(choices)).toEqual(["anchor", "dense", "compact", "full"])
        expect(choices.map((choice) => choice.reason)).toEqual(["kept", "kept", "kept", "kept"])
      }
    })

    it("moves a compartment whose applied tier is no longer legal to its most detailed legal tier below full", () => {
      const compartments = [
        compartment("c1", { current: "anchor", floor: "compact" }),
        compartment("c2", { current: "dense", tiers: { full: 100, compact: 30, anchor: 10 } }),
      ]
      // c1 (full, dense, compact legal) to dense, c2 (full, compact, anchor) to compact: 90 of 120, between the lines.
      expect(selectTiers({ compartments, budgetTokens: 120, policy: "default" })).toEqual([
        { id: "c1", tier: "dense", reason: "floor", belowFloor: false },
        { id: "c2", tier: "compact", reason: "floor", belowFloor: false },
      ])
      // 90 of 1,000 (9%): both are promoted to full (200, under 750).
      expect(selectTiers({ compartments, budgetTokens: 1_000, policy: "default" })).toEqual([
        { id: "c1", tier: "full", reason: "promoted: room in the budget", belowFloor: false },
        { id: "c2", tier: "full", reason: "promoted: room in the budget", belowFloor: false },
      ])
    })

    it("returns one choice per compartment, in the order given, and nothing for no compartments", () => {
      expect(selectTiers({ compartments: [], budgetTokens: 100, policy: "default" })).toEqual([])
      const compartments = ["z", "a", "m"].map((id) => compartment(id))
      const choices = selectTiers({ compartments, budgetTokens: 1, policy: "default" })
      expect(choices.map((choice) => choice.id)).toEqual(["z", "a", "m"])
    })

    it("does not change its input", () => {
      const compartments = four(["anchor", null, "full", "compact"], [{ relevance: 1 }])
      const copy = structuredClone(compartments)
      selectTiers({ compartments, budgetTokens: 120, policy: "default" })
      selectTiers({ compartments, budgetTokens: 10_000, policy: "default" })
      expect(compartments).toEqual(copy)
    })
  })

  describe("with the age-only policy", () => {
    it("makes older compartments shorter whatever the budget: full, dense, compact, then anchor", () => {
      const compartments = Array.from({ length: 10 }, (_, index) => compartment(`c${index + 1}`))
      const choices = selectTiers({ compartments, budgetTokens: 1_000_000, policy: "age-only" })
      expect(tiersOf(choices)).toEqual([
        "anchor",
        "anchor",
        "compact",
        "compact",
        "compact",
        "compact",
        "dense",
        "dense",
        "full",
        "full",
      ])
      expect(choices.map((choice) => choice.reason)).toEqual([9, 8, 7, 6, 5, 4, 3, 2, 1, 0].map((age) => `age ${age}`))
    })

    it("ignores floors and flags every choice below one", () => {
      const compartments = Array.from({ length: 9 }, (_, index) => compartment(`c${index + 1}`, { floor: "compact" }))
      const choices = selectTiers({ compartments, budgetTokens: 1_000_000, policy: "age-only" })
      expect(choices[0]).toEqual({ id: "c1", tier: "anchor", reason: "age 8", belowFloor: true })
      expect(choices.filter((choice) => choice.belowFloor).map((choice) => choice.id)).toEqual(["c1"])
    })

    it("takes the nearest less detailed tier a compartment has, else the nearest more detailed one", () => {
      const compartments = [
        compartment("c1", { tiers: { full: 100, anchor: 10 } }),
        compartment("c2", { tiers: { full: 100 } }),
        compartment("c3", { tiers: { full: 100, anchor: 10 } }),
        compartment("c4"),
        compartment("c5"),
      ]
      // Ages 4, 3, 2, 1, 0: wanted compact, dense, dense, full, full.
      const choices = selectTiers({ compartments, budgetTokens: 1, policy: "age-only" })
      expect(tiersOf(choices)).toEqual(["anchor", "full", "anchor", "full", "full"])
    })
  })

  describe("with the flat policy", () => {
    it.each<[number, string]>([
      [400, "full"],
      [399, "dense"],
      [240, "dense"],
      [239, "compact"],
      [120, "compact"],
      [119, "anchor"],
      [1, "anchor"],
    ])("shows everything at one level: budget %i gives %s", (budget, level) => {
      const choices = selectTiers({ compartments: four(), budgetTokens: budget, policy: "flat" })
      expect(tiersOf(choices)).toEqual([level, level, level, level])
      expect(choices.every((choice) => choice.reason === `flat at ${level}`)).toBe(true)
    })

    it("ignores floors and flags the choices below them", () => {
      const compartments = four([null, null, null, null], [{ floor: "full" }, { floor: "compact" }, { floor: "none" }])
      const choices = selectTiers({ compartments, budgetTokens: 120, policy: "flat" })
      expect(choices.map((choice) => [choice.tier, choice.belowFloor])).toEqual([
        ["compact", true],
        ["compact", false],
        ["compact", false],
        ["compact", false],
      ])
    })
  })

  describe("with the truncation policy", () => {
    it("keeps the newest compartments at full detail while they fit and omits the older ones", () => {
      const choices = selectTiers({ compartments: four(), budgetTokens: 250, policy: "truncation" })
      expect(choices).toEqual([
        { id: "c1", tier: "omitted", reason: "truncated", belowFloor: true },
        { id: "c2", tier: "omitted", reason: "truncated", belowFloor: true },
        { id: "c3", tier: "full", reason: "newest, fits", belowFloor: false },
        { id: "c4", tier: "full", reason: "newest, fits", belowFloor: false },
      ])
    })

    it("omits everything older than the first compartment that does not fit, even smaller ones", () => {
      const compartments = [compartment("c1", { tiers: { anchor: 10 } }), compartment("c2"), compartment("c3")]
      const choices = selectTiers({ compartments, budgetTokens: 150, policy: "truncation" })
      expect(tiersOf(choices)).toEqual(["omitted", "omitted", "full"])
    })

    it("does not flag an omitted compartment whose facts may all disappear", () => {
      const compartments = [compartment("c1", { floor: "none" }), compartment("c2")]
      expect(selectTiers({ compartments, budgetTokens: 100, policy: "truncation" })[0]).toEqual({
        id: "c1",
        tier: "omitted",
        reason: "truncated",
        belowFloor: false,
      })
    })
  })
})
