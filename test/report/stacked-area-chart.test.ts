import { describe, expect, it } from "vitest"
import { OKABE_ITO } from "../../src/report/palette.js"
import { stackedAreaChart, type StackedAreaChartSpec } from "../../src/report/stacked-area-chart.js"
import { expectSoundSvg, pathsColoured, pathYs } from "./svg-checks.js"

const TIERS = ["FULL", "DENSE", "COMPACT", "ANCHOR"]

/** Compartments per tier over 300 turns: one closes every 10 turns and older ones move down the tiers. */
const example: StackedAreaChartSpec = {
  title: "Compartments per tier",
  xLabel: "turn",
  yLabel: "compartments",
  categories: TIERS,
  rows: Array.from({ length: 300 }, (_, turn) => {
    const total = Math.floor(turn / 10)
    return {
      x: turn + 1,
      values: { FULL: Math.min(total, 3), DENSE: Math.min(Math.max(total - 3, 0), 5), COMPACT: Math.max(total - 8, 0) },
    }
  }),
}

function tickY(svg: string, label: string): number {
  const match = new RegExp(`<text x="[\\d.]+" y="([\\d.]+)" dy="0.35em">${label}</text>`).exec(svg)
  return Number(match?.[1])
}

describe("stackedAreaChart", () => {
  it("renders the same bytes for the same spec", async () => {
    const svg = stackedAreaChart(example)
    expect(stackedAreaChart(structuredClone(example))).toBe(svg)
    expectSoundSvg(svg)
    await expect(svg).toMatchFileSnapshot("./golden/stacked-area-chart.svg")
  })

  it("stacks shares up to 100% in share mode", async () => {
    const svg = stackedAreaChart({ ...example, mode: "share" })
    expectSoundSvg(svg)
    expect(svg).toContain(">0%</text>")
    expect(svg).toContain(">100%</text>")
    expect(svg).not.toContain(">120%</text>")
    await expect(svg).toMatchFileSnapshot("./golden/stacked-area-chart-share.svg")
  })

  it("keeps a one-turn spike among 10,000 rows at its full height", () => {
    const rows = Array.from({ length: 10_000 }, (_, turn) => ({
      x: turn,
      values: { FULL: turn === 7_777 ? 58 : 5, DENSE: 2 },
    }))
    const svg = stackedAreaChart({ title: "spike", categories: ["FULL", "DENSE"], rows })
    const [dense = ""] = pathsColoured(svg, OKABE_ITO[1])
    expect(Math.min(...pathYs(dense))).toBeCloseTo(tickY(svg, "60"), 0)
    expect(svg.length).toBeLessThan(30_000)
  })

  it("lists the categories top down, as they are stacked", () => {
    const svg = stackedAreaChart(example)
    expect(svg.indexOf(">ANCHOR</text>")).toBeGreaterThan(0)
    expect(svg.indexOf(">ANCHOR</text>")).toBeLessThan(svg.indexOf(">FULL</text>"))
  })

  it.each<[string, Partial<StackedAreaChartSpec>]>([
    ["no rows", { rows: [] }],
    ["no categories", { categories: [] }],
    ["a single row", { rows: [{ x: 1, values: { FULL: 2 } }] }],
    ["all zeros", { rows: [1, 2, 3].map((x) => ({ x, values: {} })) }],
    ["all zeros as shares", { mode: "share", rows: [1, 2, 3].map((x) => ({ x, values: { FULL: 0 } })) }],
    [
      "negative and non-finite values",
      {
        rows: [
          { x: 1, values: { FULL: -3, DENSE: Number.NaN } },
          { x: Number.NaN, values: {} },
        ],
      },
    ],
    ["categories named like object members", { categories: ["__proto__", "toString", "constructor"] }],
    ["all rows at one x", { rows: [1, 2].map(() => ({ x: 4, values: { FULL: 1 } })) }],
  ])("stays well-formed without NaN or Infinity for %s", (_, overrides) => {
    expectSoundSvg(stackedAreaChart({ ...example, ...overrides }))
  })
})
