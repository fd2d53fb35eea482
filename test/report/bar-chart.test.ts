import { describe, expect, it } from "vitest"
import { barChart, type BarChartSpec } from "../../src/report/bar-chart.js"
import { expectSoundSvg } from "./svg-checks.js"

/** Survival per probe kind for three policies; truncation has no error probes. */
const example: BarChartSpec = {
  title: "Survival per probe kind",
  categories: ["identifier", "decision", "error", "user preference"],
  series: [
    { name: "default", values: [0.9, 0.75, 0.5, 1] },
    { name: "flat", values: [0.6, 0.8, 0.25, 0.5] },
    { name: "truncation", values: [0.3, 0.4, null, 0.2] },
  ],
  valueLabel: "survived",
  categoryLabel: "probe kind",
  valueFormat: "percent",
  valueMax: 1,
}

/** The drawn bars (each carries its value as a tooltip). */
function barsOf(svg: string): string[] {
  return svg.match(/<rect [^>]*><title>[^<]*<\/title><\/rect>/g) ?? []
}

describe("barChart", () => {
  it.each(["vertical", "horizontal"] as const)("renders the same bytes for the same spec (%s)", async (orientation) => {
    const svg = barChart({ ...example, orientation })
    expect(barChart(structuredClone({ ...example, orientation }))).toBe(svg)
    expectSoundSvg(svg)
    await expect(svg).toMatchFileSnapshot(`./golden/bar-chart-${orientation}.svg`)
  })

  it("draws a bar per value and none for null", () => {
    const bars = barsOf(barChart(example))
    expect(bars).toHaveLength(11)
    expect(bars.join("")).toContain("<title>error · flat: 25%</title>")
    expect(bars.join("")).not.toContain("error · truncation")
  })

  it("ends the value axis at valueMax", () => {
    const svg = barChart(example)
    expect(svg).toContain(">100%</text>")
    expect(svg).not.toContain(">120%</text>")
  })

  it("stops a bar above valueMax at the top of the plot", () => {
    const svg = barChart({ ...example, series: [{ name: "s", values: [3, 0.5, 0.5, 0.5] }] })
    const top = Number(/<text x="[\d.]+" y="([\d.]+)" dy="0.35em">100%<\/text>/.exec(svg)?.[1])
    const bar = /<rect x="[\d.]+" y="([\d.]+)"/.exec(barsOf(svg)[0] ?? "")
    expect(Number(bar?.[1])).toBeCloseTo(top, 1)
  })

  it("grows negative bars down from zero", () => {
    const svg = barChart({ title: "delta", categories: ["a"], series: [{ name: "s", values: [-5] }] })
    const zero = Number(/<text x="[\d.]+" y="([\d.]+)" dy="0.35em">0<\/text>/.exec(svg)?.[1])
    const bar = /<rect x="[\d.]+" y="([\d.]+)" width="[\d.]+" height="([\d.]+)"/.exec(barsOf(svg)[0] ?? "")
    expect(Number(bar?.[1])).toBeCloseTo(zero, 1)
    expect(Number(bar?.[2])).toBeGreaterThan(0)
  })

  it("cuts long category names to fit their group, keeping them escaped", () => {
    const svg = barChart({
      ...example,
      categories: ["a <very> long category name that cannot fit & more", "b", "c", "d", "e", "f", "g", "h"],
    })
    expectSoundSvg(svg)
    expect(svg).toContain("a &lt;very")
    expect(svg).toContain("…")
  })

  it.each<[string, Partial<BarChartSpec>]>([
    ["no categories", { categories: [] }],
    ["no series", { series: [] }],
    ["only nulls", { series: [{ name: "s", values: [null, null] }] }],
    ["all zeros", { series: [{ name: "s", values: [0, 0, 0, 0] }] }],
    [
      "non-finite values",
      { series: [{ name: "s", values: [Number.NaN, Number.POSITIVE_INFINITY, -Number.MAX_VALUE] }] },
    ],
    ["a valueMax below zero", { valueMax: -1 }],
    ["a NaN valueMax", { valueMax: Number.NaN }],
    ["horizontal with no categories", { orientation: "horizontal", categories: [] }],
  ])("stays well-formed without NaN or Infinity for %s", (_, overrides) => {
    expectSoundSvg(barChart({ ...example, ...overrides }))
  })
})
