import { describe, expect, it } from "vitest"
import { formatCompactNumber, formatGroupedNumber, formatNumber, formatValue } from "../../src/report/format-number.js"

describe("formatNumber", () => {
  it.each([
    [0, "0"],
    [-0, "0"],
    [-0.001, "0"],
    [1.5, "1.5"],
    [1.234, "1.23"],
    [-12.346, "-12.35"],
    [100, "100"],
    [2.1, "2.1"],
    [0.1 + 0.2, "0.3"],
    [Number.NaN, "0"],
    [Number.POSITIVE_INFINITY, "0"],
    [Number.NEGATIVE_INFINITY, "0"],
  ])("formats %s as %s", (value, text) => {
    expect(formatNumber(value)).toBe(text)
  })

  it("rounds to the given number of decimals", () => {
    expect(formatNumber(33.333, 1)).toBe("33.3")
    expect(formatNumber(33.5, 0)).toBe("34")
    expect(formatNumber(1200, 0)).toBe("1200")
  })
})

describe("formatCompactNumber", () => {
  it.each([
    [0, "0"],
    [0.25, "0.25"],
    [950, "950"],
    [999.999, "1k"],
    [1000, "1k"],
    [1500, "1.5k"],
    [48000, "48k"],
    [48213, "48.21k"],
    [250000, "250k"],
    [999999, "1M"],
    [1200000, "1.2M"],
    [3e9, "3B"],
    [-2500, "-2.5k"],
    [-0.0001, "0"],
    [Number.NaN, "0"],
  ])("formats %s as %s", (value, text) => {
    expect(formatCompactNumber(value)).toBe(text)
  })
})

describe("formatGroupedNumber", () => {
  it.each([
    [0, "0"],
    [999, "999"],
    [1000, "1,000"],
    [-1234, "-1,234"],
    [1234567.5, "1,234,567.5"],
  ])("formats %s as %s", (value, text) => {
    expect(formatGroupedNumber(value)).toBe(text)
  })
})

describe("formatValue", () => {
  it.each([
    [0.4, "percent", "40%"],
    [0.125, "percent", "12.5%"],
    [1, "percent", "100%"],
    [0.1 * 3, "percent", "30%"],
    [48000, "compact", "48k"],
    [48000, "plain", "48,000"],
  ] as const)("formats %s as %s: %s", (value, format, text) => {
    expect(formatValue(value, format)).toBe(text)
  })
})
