import { describe, expect, it } from "vitest"
import { scatterChart, type ScatterChartSpec } from "../../src/report/scatter-chart.js"
import { expectSoundSvg } from "./svg-checks.js"

const POLICIES = ["default", "flat", "truncation", "oracle"]

/** Operating points of four policies at two windows, plus the unreduced run, which is the same at both. */
const example: ScatterChartSpec = {
  title: "Survival against mean prompt tokens",
  xLabel: "mean prompt tokens",
  yLabel: "survived",
  yFormat: "percent",
  yMin: 0,
  yMax: 1,
  connectSeries: true,
  points: ["32k window", "128k window"].flatMap((series, window) => [
    ...POLICIES.map((label, policy) => ({
      series,
      label,
      x: 20_000 * (window + 1) + policy * 3_000,
      y: 0.4 + window * 0.2 + policy * 0.05,
    })),
    { series, label: "full", x: 150_000, y: 1 },
  ]),
}

describe("scatterChart", () => {
  it("renders the same bytes for the same spec", async () => {
    const svg = scatterChart(example)
    expect(scatterChart(structuredClone(example))).toBe(svg)
    expectSoundSvg(svg)
    await expect(svg).toMatchFileSnapshot("./golden/scatter-chart.svg")
  })

  it("labels every point, and coinciding points with the same label once", () => {
    const svg = scatterChart(example)
    for (const policy of POLICIES) expect(svg.match(new RegExp(`>${policy}</text>`, "g"))).toHaveLength(2)
    expect(svg.match(/>full<\/text>/g)).toHaveLength(1)
  })

  it("joins each series' points when asked", () => {
    const joined = scatterChart(example)
    const apart = scatterChart({ ...example, connectSeries: false })
    expect(joined.match(/stroke-opacity="0.6"/g)).toHaveLength(2)
    expect(apart).not.toContain('stroke-opacity="0.6"')
  })

  it("gives each series its own marker shape", () => {
    const svg = scatterChart(example)
    expect(svg).toContain("<circle ")
    expect(svg).toMatch(/<path d="M[\d. ]+H[\d.]+V/)
  })

  it("escapes labels and series names", () => {
    const svg = scatterChart({ title: "t", points: [{ x: 1, y: 1, label: "<a & b>", series: `"w"` }] })
    expectSoundSvg(svg)
    expect(svg).toContain("&lt;a &amp; b&gt;")
    expect(svg).toContain("&quot;w&quot;")
  })

  it.each<[string, Partial<ScatterChartSpec>]>([
    ["no points", { points: [] }],
    ["one point", { points: [{ x: 5, y: 5, label: "a", series: "s" }] }],
    ["the same point twice", { points: [1, 2].map(() => ({ x: 0, y: 0, label: "a", series: "s" })) }],
    [
      "non-finite points",
      {
        points: [
          { x: Number.NaN, y: 1, label: "a", series: "s" },
          { x: 1, y: Number.NEGATIVE_INFINITY, label: "b", series: "s" },
        ],
      },
    ],
    ["inverted fixed bounds", { yMin: 1, yMax: 0, xMin: Number.NaN }],
    ["points beyond the fixed bounds", { xMax: 10 }],
  ])("stays well-formed without NaN or Infinity for %s", (_, overrides) => {
    expectSoundSvg(scatterChart({ ...example, ...overrides }))
  })
})
