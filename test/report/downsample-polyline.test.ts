import { describe, expect, it } from "vitest"
import { downsamplePolyline, type Point } from "../../src/report/downsample-polyline.js"

/** 10,000 points over 500 pixel columns, gently noisy (pixel y grows downwards, so the spike is a minimum). */
function noisySeries(spikeAt?: number): Point[] {
  return Array.from({ length: 10_000 }, (_, index) => ({
    x: 10 + index * 0.05,
    y: index === spikeAt ? 5 : 300 + ((index * 7919) % 13) - 6,
  }))
}

describe("downsamplePolyline", () => {
  it("keeps at most two points per pixel column, plus the ends", () => {
    const kept = downsamplePolyline(noisySeries())
    expect(kept.length).toBeLessThanOrEqual(2 * 500 + 2)
    const perColumn = new Map<number, number>()
    for (const point of kept) perColumn.set(Math.floor(point.x), (perColumn.get(Math.floor(point.x)) ?? 0) + 1)
    expect(Math.max(...perColumn.values())).toBeLessThanOrEqual(3)
  })

  it("keeps a single-point spike among 10,000 points", () => {
    const kept = downsamplePolyline(noisySeries(4321))
    expect(Math.min(...kept.map((point) => point.y))).toBe(5)
    expect(kept).toContainEqual({ x: 10 + 4321 * 0.05, y: 5 })
  })

  it("keeps the first and last points", () => {
    const points = noisySeries()
    const kept = downsamplePolyline(points)
    expect(kept[0]).toBe(points[0])
    expect(kept[kept.length - 1]).toBe(points[points.length - 1])
  })

  it("reduces a straight line to its two ends", () => {
    const line = Array.from({ length: 1000 }, (_, index) => ({ x: index, y: 2 * index + 1 }))
    expect(downsamplePolyline(line)).toEqual([line[0], line[999]])
  })

  it("keeps a corner", () => {
    const corner = [
      { x: 0, y: 0 },
      { x: 50, y: 0 },
      { x: 100, y: 0 },
      { x: 100, y: 50 },
      { x: 100, y: 100 },
    ]
    expect(downsamplePolyline(corner)).toEqual([corner[0], corner[2], corner[4]])
  })

  it.each([
    [[]],
    [[{ x: 1, y: 2 }]],
    [
      [
        { x: 1, y: 2 },
        { x: 1, y: 2 },
      ],
    ],
  ])("returns short input unchanged: %j", (points) => {
    expect(downsamplePolyline(points)).toEqual(points)
  })

  it("does not mutate its input", () => {
    const points = noisySeries(10)
    const copy = structuredClone(points)
    downsamplePolyline(points)
    expect(points).toEqual(copy)
  })
})
