import { describe, expect, it } from "vitest"
import { niceTicks } from "../../src/report/axis-ticks.js"

describe("niceTicks", () => {
  it.each([
    [{ min: 0, max: 48213, count: 5 }, 10000, [0, 10000, 20000, 30000, 40000, 50000]],
    [{ min: 0, max: 1, count: 5 }, 0.2, [0, 0.2, 0.4, 0.6, 0.8, 1]],
    [{ min: 0.3, max: 0.9, count: 6 }, 0.1, [0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9]],
    [{ min: 1, max: 1000, count: 7 }, 200, [0, 200, 400, 600, 800, 1000]],
    [{ min: -7, max: 13, count: 4 }, 5, [-10, -5, 0, 5, 10, 15]],
    [{ min: 10, max: 0, count: 2 }, 5, [0, 5, 10]],
    [{ min: 0.001, max: 0.004, count: 3 }, 0.001, [0.001, 0.002, 0.003, 0.004]],
    [{ min: 0, max: 200000, count: 4 }, 50000, [0, 50000, 100000, 150000, 200000]],
  ])("covers %o with steps of %s", (options, step, values) => {
    const ticks = niceTicks(options)
    expect(ticks.step).toBe(step)
    expect(ticks.values).toEqual(values)
    expect(ticks.min).toBe(values[0])
    expect(ticks.max).toBe(values[values.length - 1])
  })

  it.each([3, 7, 12, 95, 0.37, 1234, 47_000, 1_900_000, 0.0042])(
    "picks a step of 1, 2 or 5 × 10^k for a span of %s",
    (span) => {
      const { step, values, min, max } = niceTicks({ min: 0, max: span, count: 5 })
      const mantissa = step / 10 ** Math.floor(Math.log10(step) + 1e-9)
      expect([1, 2, 5]).toContain(Math.round(mantissa * 1e9) / 1e9)
      expect(min).toBeLessThanOrEqual(0)
      expect(max).toBeGreaterThanOrEqual(span)
      expect(values.length).toBeLessThanOrEqual(12)
    },
  )

  it.each([
    ["equal bounds", { min: 5, max: 5 }],
    ["both zero", { min: 0, max: 0 }],
    ["a NaN bound", { min: Number.NaN, max: 3 }],
    ["an infinite bound", { min: 0, max: Number.POSITIVE_INFINITY }],
    ["a huge span", { min: -Number.MAX_VALUE, max: Number.MAX_VALUE }],
    ["a zero count", { min: 0, max: 10, count: 0 }],
    ["a NaN count", { min: 0, max: 10, count: Number.NaN }],
  ])("gives finite, increasing ticks for %s", (_, options) => {
    const ticks = niceTicks(options)
    expect(ticks.values.length).toBeGreaterThanOrEqual(2)
    for (const value of [...ticks.values, ticks.step, ticks.min, ticks.max]) expect(Number.isFinite(value)).toBe(true)
    expect(ticks.max).toBeGreaterThan(ticks.min)
  })

  it("turns 0..0 into 0..1", () => {
    expect(niceTicks({ min: 0, max: 0, count: 2 }).values).toEqual([0, 0.5, 1])
  })

  it("widens equal bounds around the value", () => {
    const ticks = niceTicks({ min: 5000, max: 5000, count: 4 })
    expect(ticks.min).toBeLessThan(5000)
    expect(ticks.max).toBeGreaterThan(5000)
  })
})
