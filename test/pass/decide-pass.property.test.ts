import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { decidePass, type DueWork, type ReasoningHold } from "../../src/pass/decide-pass.js"
import type { Band } from "../../src/pressure/bands.js"

/**
 * The decision as a rule over every situation (DESIGN "Cost-aware timing"; the seed's bands): the force and emergency
 * bands are musts, a break that costs nothing (an expired cache) never leaves the agent's queued drops waiting, and an
 * execute pass applies everything due at once (so each break lasts).
 */
const MINIMUM = 1_000

type Situation = Omit<Parameters<typeof decidePass>[0], "minimumFreed">

const situation: fc.Arbitrary<Situation> = fc.record({
  band: fc.constantFrom<Band>("below", "execute", "force", "emergency"),
  drainActive: fc.boolean(),
  cacheExpired: fc.boolean(),
  midTool: fc.boolean(),
  reasoningHold: fc.constantFrom<ReasoningHold | undefined>(undefined, "below-force", "every-band"),
  recoverReasoning: fc.boolean(),
  pays: fc.boolean(),
  work: fc.record<DueWork>({
    landableDrops: fc.nat(3),
    readyHistory: fc.nat(3),
    reclaim: fc.record({ age: fc.nat(5_000), force: fc.nat(5_000), emergency: fc.nat(5_000) }),
    smartDrops: fc.nat(2),
    freedTokens: fc.nat(5_000),
  }),
})

const decide = (input: Situation) => decidePass({ ...input, minimumFreed: MINIMUM })

describe("decidePass (property)", () => {
  it("executes in the force and emergency bands whenever something is due and no provider rule holds it", () => {
    fc.assert(
      fc.property(situation, (input) => {
        const { band, work } = input
        if (band !== "force" && band !== "emergency") return
        if (input.reasoningHold === "every-band" && !input.recoverReasoning) return
        const due = work.landableDrops + work.readyHistory + work.smartDrops + work.reclaim[band === "force" ? "force" : "emergency"]
        expect(decide(input).decision).toBe(due > 0 || input.recoverReasoning ? "execute" : "replay")
      }),
      { numRuns: 2_000, seed: 20_261_207 },
    )
  })

  it("lands the agent's queued drops on a break that costs nothing (an expired cache) unless a hold stands", () => {
    fc.assert(
      fc.property(situation, (input) => {
        const { work } = input
        const held = input.midTool || input.reasoningHold !== undefined
        if (!input.cacheExpired || work.landableDrops === 0 || held) return
        expect(decide(input).decision).toBe("execute")
      }),
      { numRuns: 2_000, seed: 20_261_208 },
    )
  })

  it("applies everything due whenever it executes: the queued and smart drops, and a reclaim at the band's strength", () => {
    fc.assert(
      fc.property(situation, (input) => {
        const decided = decide(input)
        if (decided.decision !== "execute") return
        expect(decided.applyQueued).toBe(true)
        if (input.band === "emergency" && !input.recoverReasoning) expect(decided.reclaim).toBe("emergency")
        if (input.band === "force" && !input.recoverReasoning) expect(decided.reclaim).toBe("force")
      }),
      { numRuns: 2_000, seed: 20_261_209 },
    )
  })

  it("never executes below the threshold for work that neither pays nor rides a free break", () => {
    fc.assert(
      fc.property(situation, (input) => {
        if (input.band !== "below" || input.drainActive || input.cacheExpired || input.pays || input.recoverReasoning) return
        expect(decide(input).decision).toBe("replay")
      }),
      { numRuns: 2_000, seed: 20_261_210 },
    )
  })
})
