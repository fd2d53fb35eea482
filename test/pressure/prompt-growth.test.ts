import { describe, expect, it } from "vitest"
import { growthPerCall } from "../../src/pressure/prompt-growth.js"

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
