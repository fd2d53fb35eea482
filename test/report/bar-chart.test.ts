import { describe, expect, it } from "vitest"
import { barChart, barChartSpec } from "../../src/report/bar-chart.js"
import { BAR_EXAMPLE } from "./chart-examples.js"
import { expectSoundSvg, visibleTexts } from "./svg-checks.js"

type Encoding = Record<string, { field: string; scale?: { domain?: unknown } }>
const encodingOf = (spec: unknown): Encoding => (spec as { encoding: Encoding }).encoding
const valuesOf = (spec: unknown): unknown[] => (spec as { data: { values: unknown[] } }).data.values

describe("barChart", () => {
  it("renders the same bytes for the same spec, a sound SVG with the categories, the legend and percent ticks up to 100%", async () => {
    const svg = await barChart(BAR_EXAMPLE)
    expect(await barChart(structuredClone(BAR_EXAMPLE))).toBe(svg)
    expectSoundSvg(svg)
    expect(visibleTexts(svg)).toEqual(
      expect.arrayContaining([BAR_EXAMPLE.title, "constraint", "decision_rationale", "default", "flat", "truncation", "100%", "0%", "probes surviving"]),
    )
    await expect(svg).toMatchFileSnapshot("./golden/bar-chart-vertical.svg")
  })

  it("draws no bar for a null value and keeps the categories and series in the order given", () => {
    const spec = barChartSpec(BAR_EXAMPLE)
    expect(valuesOf(spec)).toHaveLength(11)
    expect(valuesOf(spec)).not.toContainEqual(expect.objectContaining({ category: "location", series: "default" }))
    expect(encodingOf(spec)["x"]?.scale?.domain).toEqual(BAR_EXAMPLE.categories)
    expect(encodingOf(spec)["color"]?.scale?.domain).toEqual(["default", "flat", "truncation"])
    expect(encodingOf(spec)["y"]?.scale?.domain).toEqual([0, 1])
  })

  it("lays the groups out top down when horizontal", async () => {
    const spec = barChartSpec({ ...BAR_EXAMPLE, orientation: "horizontal" })
    expect(encodingOf(spec)["y"]?.field).toBe("category")
    expect(encodingOf(spec)["yOffset"]?.field).toBe("series")
    expect(encodingOf(spec)["x"]?.field).toBe("value")
    const svg = await barChart({ ...BAR_EXAMPLE, orientation: "horizontal" })
    expectSoundSvg(svg)
    await expect(svg).toMatchFileSnapshot("./golden/bar-chart-horizontal.svg")
  })
})
