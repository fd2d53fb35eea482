import { describe, expect, it } from "vitest"
import { DRAIN_LATCH_MS, type Band } from "../../src/pressure/bands.js"
import { nextDrainState } from "../../src/pressure/drain-latch.js"
import type { DrainState } from "../../src/session/session-state.js"

const STARTED = 1_000_000
const active: DrainState = { active: true, startedAt: STARTED }
const idle: DrainState = { active: false }

describe("nextDrainState", () => {
  it.each<[Band, number]>([
    ["force", 86],
    ["emergency", 97],
  ])("starts the drain in the %s band", (band, usage) => {
    expect(nextDrainState({ drain: idle, band, usagePercent: usage, thresholdPercent: 65, now: STARTED })).toEqual({
      drain: active,
      transition: "started",
    })
  })

  it.each<[Band, number]>([
    ["below", 40],
    ["execute", 84.9],
  ])("stays idle in the %s band", (band, usage) => {
    expect(nextDrainState({ drain: idle, band, usagePercent: usage, thresholdPercent: 65, now: STARTED })).toEqual({
      drain: idle,
      transition: "idle",
    })
  })

  it.each<[Band, number]>([
    ["emergency", 96],
    ["force", 88],
    ["execute", 70],
    ["below", 55.01],
  ])("continues an active drain in the %s band at %f%%, keeping its start", (band, usage) => {
    const next = nextDrainState({
      drain: active,
      band,
      usagePercent: usage,
      thresholdPercent: 65,
      now: STARTED + 60_000,
    })
    expect(next).toEqual({ drain: active, transition: "continued" })
    expect(next.drain).toBe(active)
  })

  it.each([
    [65, 55],
    [65, 54.99],
    [65, 10],
    [90, 80],
    [30, 20],
  ])("ends the drain once usage is 10 points under the %i%% threshold (%f%%)", (threshold, usage) => {
    expect(
      nextDrainState({
        drain: active,
        band: "below",
        usagePercent: usage,
        thresholdPercent: threshold,
        now: STARTED + 1,
      }),
    ).toEqual({ drain: idle, transition: "ended-below-target" })
  })

  it.each([
    [DRAIN_LATCH_MS - 1, "continued"],
    [DRAIN_LATCH_MS, "ended-latch"],
    [DRAIN_LATCH_MS + 1, "ended-latch"],
  ])("lets the 30-minute latch expire at exactly 30 minutes (after %i ms: %s)", (elapsed, transition) => {
    const next = nextDrainState({
      drain: active,
      band: "execute",
      usagePercent: 70,
      thresholdPercent: 65,
      now: STARTED + elapsed,
    })
    expect(next.transition).toBe(transition)
    expect(next.drain.active).toBe(transition === "continued")
  })

  it("is exactly 30 minutes", () => {
    expect(DRAIN_LATCH_MS).toBe(1_800_000)
  })

  it.each<[Band, number]>([
    ["force", 90],
    ["emergency", 99],
  ])("starts a new drain when the latch expires while still in the %s band", (band, usage) => {
    const now = STARTED + DRAIN_LATCH_MS
    expect(nextDrainState({ drain: active, band, usagePercent: usage, thresholdPercent: 65, now })).toEqual({
      drain: { active: true, startedAt: now },
      transition: "started",
    })
  })
})
