import { describe, expect, it } from "vitest"
import { classifyBand, forceBandStart, usagePercent, type Band } from "../../src/pressure/bands.js"

describe("forceBandStart", () => {
  it.each([
    [30, 85],
    [65, 85],
    [83, 85],
    [84, 86],
    [90, 92],
    [92, 94],
  ])("starts the force band for a %i%% threshold at %i%%", (threshold, start) => {
    expect(forceBandStart(threshold)).toBe(start)
  })
})

describe("classifyBand", () => {
  it.each<[number, Band]>([
    [0, "below"],
    [64.99, "below"],
    [65, "execute"],
    [84.99, "execute"],
    [85, "force"],
    [94.99, "force"],
    [95, "emergency"],
    [100, "emergency"],
    [250, "emergency"],
  ])("puts %f%% at the default 65%% threshold in the %s band", (usage, band) => {
    expect(classifyBand({ usagePercent: usage, thresholdPercent: 65 })).toBe(band)
  })

  it.each<[number, Band]>([
    [89.99, "below"],
    [90, "execute"],
    [91.99, "execute"],
    [92, "force"],
    [94.99, "force"],
    [95, "emergency"],
  ])("puts %f%% at a 90%% threshold in the %s band", (usage, band) => {
    expect(classifyBand({ usagePercent: usage, thresholdPercent: 90 })).toBe(band)
  })

  it.each<[number, Band]>([
    [29.99, "below"],
    [30, "execute"],
    [84.99, "execute"],
    [85, "force"],
  ])("puts %f%% at a 30%% threshold in the %s band", (usage, band) => {
    expect(classifyBand({ usagePercent: usage, thresholdPercent: 30 })).toBe(band)
  })
})

describe("usagePercent", () => {
  it.each([
    [0, 200_000, 0],
    [130_000, 200_000, 65],
    [300_000, 200_000, 150],
    [5, 0, 0],
    [5, -1, 0],
  ])("makes %i of %i tokens %f%%", (usage, usable, percent) => {
    expect(usagePercent(usage, usable)).toBe(percent)
  })
})
