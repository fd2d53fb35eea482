import { describe, expect, it } from "vitest"
import { stackedAreaChart, stackedAreaChartSpec } from "../../src/report/stacked-area-chart.js"
import { AREA_EXAMPLE } from "./chart-examples.js"
import { expectSoundSvg, visibleTexts } from "./svg-checks.js"

type Value = { x: number; category: string; order: number; value: number }
const valuesOf = (spec: unknown): Value[] => (spec as { data: { values: Value[] } }).data.values
const encodingOf = (spec: unknown) => (spec as { encoding: { y: { stack: string }; color: { scale: { domain: string[] } } } }).encoding

describe("stackedAreaChart", () => {
  it("renders the same bytes for the same spec, a sound SVG with the title and every category in the legend", async () => {
    const svg = await stackedAreaChart(AREA_EXAMPLE)
    expect(await stackedAreaChart(structuredClone(AREA_EXAMPLE))).toBe(svg)
    expectSoundSvg(svg)
    expect(visibleTexts(svg)).toEqual(expect.arrayContaining(["Compartments per tier", "source record", "compartments", "FULL", "DENSE", "COMPACT", "ANCHOR"]))
    await expect(svg).toMatchFileSnapshot("./golden/stacked-area-chart.svg")
  })

  it("leaves out only rows equal to both neighbours, so every change of a step stays drawn", () => {
    const values = valuesOf(stackedAreaChartSpec(AREA_EXAMPLE))
    const xs = [...new Set(values.map((value) => value.x))]
    // Steps every 20 calls: each change keeps the row before it and its own, plus the first and last rows.
    expect(xs.length).toBeLessThan(60)
    for (const change of [20, 40, 60, 80, 90, 180, 270]) expect(xs).toEqual(expect.arrayContaining([change - 1, change]))
    expect(xs[0]).toBe(0)
    expect(xs.at(-1)).toBe(299)
    expect(values.filter((value) => value.x === 120)).toEqual([
      { x: 120, category: "FULL", order: 0, value: 3 },
      { x: 120, category: "DENSE", order: 1, value: 3 },
      { x: 120, category: "COMPACT", order: 2, value: 2 },
      { x: 120, category: "ANCHOR", order: 3, value: 1 },
    ])
  })

  it("stacks from the first category up, counts a missing, negative or non-finite value as zero, and sorts rows by x", () => {
    const spec = stackedAreaChartSpec({
      title: "t",
      categories: ["A", "B"],
      rows: [
        { x: 2, values: { A: 1, B: -3 } },
        { x: 1, values: { A: Number.NaN } },
        { x: Number.NaN, values: { A: 5, B: 5 } },
      ],
    })
    expect(valuesOf(spec)).toEqual([
      { x: 1, category: "A", order: 0, value: 0 },
      { x: 1, category: "B", order: 1, value: 0 },
      { x: 2, category: "A", order: 0, value: 1 },
      { x: 2, category: "B", order: 1, value: 0 },
    ])
    expect(encodingOf(spec).color.scale.domain).toEqual(["A", "B"])
    expect(encodingOf(spec).y.stack).toBe("zero")
    expect(encodingOf(stackedAreaChartSpec({ ...AREA_EXAMPLE, mode: "share" })).y.stack).toBe("normalize")
  })

  it("shows shares as percentages up to 100%", async () => {
    const texts = visibleTexts(await stackedAreaChart({ ...AREA_EXAMPLE, mode: "share" }))
    expect(texts).toContain("100%")
    expect(texts).toContain("0%")
  })
})
