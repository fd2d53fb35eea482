import { describe, expect, it } from "vitest"
import { estimateUsage, reportedPromptTokens } from "../../src/pressure/estimate-usage.js"

describe("estimateUsage", () => {
  it.each([
    [10_000, 0, 10_000],
    [10_000, 1_500, 11_500],
    [10_000, -2_000, 8_000],
    [1_000, -5_000, 0],
  ])("adds the calibration to the counted prompt (%i + %i = %i), never below 0", (promptTokens, calibrationTokens, usage) => {
    expect(estimateUsage({ promptTokens, calibrationTokens })).toBe(usage)
  })
})

describe("reportedPromptTokens", () => {
  it("adds input, cache reads and cache writes, not output", () => {
    expect(reportedPromptTokens({ input: 2_000, cache: { read: 9_000, write: 500 } })).toBe(11_500)
    expect(reportedPromptTokens({ input: 0, cache: { read: 0, write: 0 } })).toBe(0)
    expect(reportedPromptTokens(undefined)).toBe(0)
  })
})
