import { describe, expect, it } from "vitest"
import { nudgeFor, type NudgeLevel } from "../../src/pressure/nudge-band.js"

describe("nudgeFor", () => {
  it.each<[string, number, number, NudgeLevel, boolean]>([
    ["an empty tail", 0, 0, "quiet", false],
    ["a live tail under the 60k floor", 59_999, 59_999, "quiet", false],
    ["reclaimable under the 25k floor", 200_000, 24_999, "quiet", false],
    ["both floors met, share under 0.20", 200_000, 39_999, "quiet", false],
    ["share exactly 0.20", 125_000, 25_000, "gentle", false],
    ["share 0.39", 100_000, 39_000, "gentle", false],
    ["share exactly 0.40", 100_000, 40_000, "firm", false],
    ["share 0.59", 100_000, 59_000, "firm", false],
    ["share exactly 0.60", 100_000, 60_000, "urgent", false],
    ["share 0.74", 100_000, 74_000, "urgent", false],
    ["share exactly 0.75 with 75k reclaimable", 100_000, 75_000, "urgent", true],
    ["share 0.75 with exactly 50k reclaimable", 66_667, 50_000, "urgent", false],
    ["share 0.80 with exactly 50k reclaimable", 62_500, 50_000, "urgent", true],
    ["share 0.80 with under 50k reclaimable", 62_000, 49_600, "urgent", false],
    ["everything reclaimable", 60_000, 60_000, "urgent", true],
    ["the live tail at exactly 60k", 60_000, 25_000, "firm", false],
  ])("reads %s as %s (channel 2: %s)", (_name, liveTailTokens, reclaimableTokens, level, channelTwo) => {
    const share = liveTailTokens > 0 ? reclaimableTokens / liveTailTokens : 0
    expect(nudgeFor({ liveTailTokens, reclaimableTokens })).toEqual({ level, share, channelTwo })
  })

  it("reports the share even when quiet", () => {
    expect(nudgeFor({ liveTailTokens: 50_000, reclaimableTokens: 40_000 })).toEqual({
      level: "quiet",
      share: 0.8,
      channelTwo: false,
    })
  })
})
