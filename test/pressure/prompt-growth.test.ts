import { describe, expect, it } from "vitest"
import { growthPerCall } from "../../src/pressure/prompt-growth.js"

const estimates = (...values: number[]) => values.map((estimate) => ({ estimate }))

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
})
