import { describe, expect, it } from "vitest"
import { lineChart, lineChartSpec } from "../../src/report/line-chart.js"
import { LINE_EXAMPLE } from "./chart-examples.js"
import { expectSoundSvg, visibleTexts } from "./svg-checks.js"

type Layer = { data?: { values: { series?: string; x: number; y: number; label?: string }[] }; mark?: unknown; encoding?: Record<string, { scale?: { domain?: unknown } }> }
const layers = (spec: unknown): Layer[] => (spec as { layer: Layer[] }).layer
const lineValues = (spec: unknown) => layers(spec)[0]?.data?.values ?? []

describe("lineChart", () => {
  it("renders the same bytes for the same spec, a sound SVG with the title, the axis titles, the legend and the reference lines", async () => {
    const svg = await lineChart(LINE_EXAMPLE)
    expect(await lineChart(structuredClone(LINE_EXAMPLE))).toBe(svg)
    expectSoundSvg(svg)
    const texts = visibleTexts(svg)
    for (const text of ["Prompt tokens per turn", "turn", "prompt tokens", "default", "truncation", "window", "execute threshold", "100k", "0"]) {
      expect(texts).toContain(text)
    }
    await expect(svg).toMatchFileSnapshot("./golden/line-chart.svg")
  })

  it("thins a 10,000-point series to a small document and keeps a one-call spike at its full height", async () => {
    const points = Array.from({ length: 10_000 }, (_, turn) => ({ x: turn, y: turn === 6_789 ? 100_000 : 20_000 + (turn % 17) * 100 }))
    const spec = lineChartSpec({ title: "spike", series: [{ name: "default", points }] })
    const kept = lineValues(spec)
    expect(kept.length).toBeLessThan(2 * 800)
    expect(kept).toContainEqual({ series: "default", x: 6_789, y: 100_000 })
    expect(kept[0]).toEqual({ series: "default", x: 0, y: 20_000 })
    expect(kept.at(-1)).toEqual({ series: "default", x: 9_999, y: 20_000 + (9_999 % 17) * 100 })
    expect((await lineChart({ title: "spike", series: [{ name: "default", points }] })).length).toBeLessThan(60_000)
  })

  it("raises the y axis to show reference lines above the data, and labels them at the right end", () => {
    const spec = lineChartSpec({ ...LINE_EXAMPLE, referenceLines: [{ y: 200_000, label: "window 200k" }] })
    expect(layers(spec)[0]?.encoding?.["y"]?.scale?.domain).toEqual([0, 200_000])
    expect(layers(spec)[1]?.data?.values).toEqual([{ y: 200_000, label: "window 200k", x: 200 }])
  })

  it("ends the y axis at yMax and leaves out reference lines above it", () => {
    const spec = lineChartSpec({ ...LINE_EXAMPLE, yMax: 110_000 })
    expect(layers(spec)[0]?.encoding?.["y"]?.scale?.domain).toEqual([0, 110_000])
    expect(layers(spec)[1]?.data?.values.map((line) => line.label)).toEqual(["execute threshold"])
    expect(layers(lineChartSpec({ ...LINE_EXAMPLE, yMax: 50_000 }))).toHaveLength(1)
  })

  it("colours the series in the order given, whatever order their points come in, and skips non-finite points", () => {
    const spec = lineChartSpec({
      title: "order",
      series: [
        { name: "zeta", points: [{ x: 2, y: 1 }, { x: 1, y: Number.NaN }, { x: 0, y: 3 }] },
        { name: "alpha", points: [{ x: 0, y: 2 }, { x: Number.POSITIVE_INFINITY, y: 1 }] },
      ],
    })
    expect(layers(spec)[0]?.encoding?.["color"]?.scale?.domain).toEqual(["zeta", "alpha"])
    expect(lineValues(spec)).toEqual([
      { series: "zeta", x: 0, y: 3 },
      { series: "zeta", x: 2, y: 1 },
      { series: "alpha", x: 0, y: 2 },
    ])
  })

  it("draws an empty chart, not a broken document, for no data", async () => {
    expectSoundSvg(await lineChart({ title: "nothing yet", series: [] }))
  })
})
