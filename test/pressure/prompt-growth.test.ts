import { describe, expect, it } from "vitest"
import { growthPerCall, growthPerTurn, TURNS_LOOKED_AT } from "../../src/pressure/prompt-growth.js"

const estimates = (...values: number[]) => values.map((estimate) => ({ estimate, fixed: 5_000 }))

describe("growthPerCall", () => {
  it("is the mean rise between consecutive passes, leaving out the falls of execute passes", () => {
    // Rises 200, 3,700 and 100; the fall of 5,000 is an execute pass.
    expect(growthPerCall(estimates(10_000, 10_200, 13_900, 8_900, 9_000))).toBeCloseTo(4_000 / 3)
  })

  it("is 0 when no rise is known (one pass, or only flat and falling prompts)", () => {
    expect(growthPerCall([])).toBe(0)
    expect(growthPerCall(estimates(12_000))).toBe(0)
    expect(growthPerCall(estimates(12_000, 12_000, 9_000))).toBe(0)
  })

  it("leaves out a change in the fixed prompt's count: the session did not grow by it", () => {
    // A new process counts the system prompt only after its first pass: the fixed part rises by 2,000 there.
    const counted = [
      { estimate: 18_000, fixed: 14_000 },
      { estimate: 20_100, fixed: 16_000 },
      { estimate: 20_400, fixed: 16_000 },
    ]
    expect(growthPerCall(counted)).toBeCloseTo(200)
  })
})

describe("growthPerTurn", () => {
  const growth = (turns: string) => {
    // "u5 a10 a20": a user message of 5 tokens, then assistant steps of 10 and 20.
    const messages = turns.split(" ").map((entry) => ({ role: entry[0] === "u" ? "user" : "assistant", tokens: Number(entry.slice(1)) }))
    return growthPerTurn(messages.map((message) => message.role), (index) => messages[index]?.tokens ?? 0)
  }

  it("is the largest complete turn among the newest, its user message included", () => {
    expect(growth("u5 a10 a20 u1 a100 u3 a7 u2")).toBe(101)
  })

  it("leaves out the turn still running and turns older than the ones it looks at", () => {
    expect(growth("u5 a10 a20 u1 a100 u3 a7 u2 a9000")).toBe(101)
    const older = `u1 a5000 ${Array.from({ length: TURNS_LOOKED_AT }, () => "u1 a10").join(" ")} u1`
    expect(growth(older)).toBe(11)
  })

  it("is 0 before a turn is complete", () => {
    expect(growth("u5 a10")).toBe(0)
    expect(growth("u5")).toBe(0)
    expect(growthPerTurn([], () => 0)).toBe(0)
  })
})
