import { describe, expect, it } from "vitest"
import { tierTimelineChart, tierTimelineSpec, type TimelineCall } from "../../src/report/tier-timeline-chart.js"

const CALLS: TimelineCall[] = [
  { x: 3, tiers: {} },
  { x: 5, tiers: { c1: "full" } },
  { x: 8, tiers: { c1: "full", c2: "dense" } },
  { x: 9, tiers: { c1: "compact", c2: "dense", c10: "anchor" } },
  { x: 12, tiers: { c1: "compact", c2: "omitted", c10: "anchor" } },
]

describe("tierTimelineSpec", () => {
  it("draws one bar per run of calls at one tier, from a call to the next, rows in episode order", () => {
    const spec = tierTimelineSpec({ title: "tiers", calls: CALLS, xLabel: "turn" }) as unknown as {
      data: { values: unknown[] }
      encoding: { y: { sort: string[] }; x: { scale: { domain: number[] } } }
    }
    expect(spec.data.values).toEqual([
      { episode: "c1", tier: "full", from: 5, to: 9 },
      { episode: "c1", tier: "compact", from: 9, to: 13 },
      { episode: "c2", tier: "dense", from: 8, to: 12 },
      { episode: "c2", tier: "omitted", from: 12, to: 13 },
      { episode: "c10", tier: "anchor", from: 9, to: 13 },
    ])
    expect(spec.encoding.y.sort).toEqual(["c1", "c2", "c10"])
    expect(spec.encoding.x.scale.domain).toEqual([3, 13])
  })

  it("renders to the same SVG twice", async () => {
    const first = await tierTimelineChart({ title: "tiers", calls: CALLS, xLabel: "turn" })
    expect(first).toMatch(/^<svg/)
    expect(first).toContain("mark-rect")
    expect(await tierTimelineChart({ title: "tiers", calls: CALLS, xLabel: "turn" })).toBe(first)
  })
})
