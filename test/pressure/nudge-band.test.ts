import { describe, expect, it } from "vitest"
import { nudgeFloors, nudgeFor, type NudgeLevel } from "../../src/pressure/nudge-band.js"

/** A 200k usable window at the threshold: the seed's floors and bands as written. */
const AT_THRESHOLD_200K = { usableTokens: 200_000, usagePercent: 65, thresholdPercent: 65 }

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
    expect(nudgeFor({ liveTailTokens, reclaimableTokens, ...AT_THRESHOLD_200K })).toEqual({ level, share, channelTwo })
  })

  it("reports the share even when quiet", () => {
    expect(nudgeFor({ liveTailTokens: 50_000, reclaimableTokens: 40_000, ...AT_THRESHOLD_200K })).toEqual({
      level: "quiet",
      share: 0.8,
      channelTwo: false,
    })
  })

  it("keeps the seed's floors from a 200k usable window up and scales them down below it", () => {
    expect(nudgeFloors(1_000_000)).toEqual({ minLiveTail: 60_000, minReclaimable: 25_000, channelTwoMinReclaimable: 50_000 })
    expect(nudgeFloors(200_000)).toEqual({ minLiveTail: 60_000, minReclaimable: 25_000, channelTwoMinReclaimable: 50_000 })
    expect(nudgeFloors(40_000)).toEqual({ minLiveTail: 12_000, minReclaimable: 5_000, channelTwoMinReclaimable: 10_000 })
  })

  it("reminds a 40k model (whose whole window is under the 60k tail floor) when most of its tail is reclaimable", () => {
    const small = { usableTokens: 40_000, usagePercent: 60, thresholdPercent: 65 }
    expect(nudgeFor({ liveTailTokens: 20_000, reclaimableTokens: 14_000, ...small }).level).toBe("urgent")
    expect(nudgeFor({ liveTailTokens: 11_000, reclaimableTokens: 9_000, ...small }).level).toBe("quiet")
  })

  it("caps the level by how close usage is to the threshold: far below it a reminder is at most gentle", () => {
    const tail = { liveTailTokens: 100_000, reclaimableTokens: 70_000, usableTokens: 200_000, thresholdPercent: 65 }
    expect(nudgeFor({ ...tail, usagePercent: 30 })).toMatchObject({ level: "gentle", channelTwo: false })
    expect(nudgeFor({ ...tail, usagePercent: 40 })).toMatchObject({ level: "firm", channelTwo: false })
    expect(nudgeFor({ ...tail, usagePercent: 55 })).toMatchObject({ level: "urgent", channelTwo: false })
    expect(nudgeFor({ ...tail, reclaimableTokens: 80_000, usagePercent: 55 })).toMatchObject({ level: "urgent", channelTwo: true })
  })
})
