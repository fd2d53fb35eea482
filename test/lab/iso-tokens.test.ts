import { describe, expect, it } from "vitest"
import { ISO_TOLERANCE, MAX_STEPS, searchWindow } from "../../src/lab/iso-tokens.js"

describe("searchWindow", () => {
  const linear = (perToken: number) => {
    const tried: number[] = []
    return {
      tried,
      measure: async (window: number) => {
        tried.push(window)
        return { mean: window * perToken, survived: Math.floor(window / 1000), probes: 100 }
      },
    }
  }

  it("widens to a larger window when the baseline is cheaper, and stops within the tolerance", async () => {
    const { tried, measure } = linear(0.5)
    const found = await searchWindow({ window: 32_000, target: 21_000, measure })
    expect(Math.abs(found.mean - 21_000)).toBeLessThanOrEqual(21_000 * ISO_TOLERANCE)
    expect(found.window).toBe(found.mean / 0.5)
    expect(tried.length).toBeLessThanOrEqual(MAX_STEPS)
    expect(tried.every((window) => window % 100 === 0)).toBe(true)
  })

  it("narrows to a smaller window when the baseline is dearer", async () => {
    const { measure } = linear(0.5)
    const found = await searchWindow({ window: 32_000, target: 12_000, measure })
    expect(Math.abs(found.mean - 12_000)).toBeLessThanOrEqual(12_000 * ISO_TOLERANCE)
  })

  it("returns the window itself when it already matches, after one replay", async () => {
    const { tried, measure } = linear(0.5)
    const found = await searchWindow({ window: 32_000, target: 16_050, measure })
    expect(found.window).toBe(32_000)
    expect(tried).toEqual([32_000])
  })

  it("returns the closest window it tried when the target is out of reach", async () => {
    const { tried, measure } = linear(0.5)
    const found = await searchWindow({ window: 32_000, target: 100_000, measure })
    expect(found.window).toBe(Math.max(...tried))
    expect(tried.length).toBeLessThanOrEqual(MAX_STEPS)
  })
})
