import { describe, expect, it } from "vitest"
import { lineChart, type LineChartSpec } from "../../src/report/line-chart.js"
import { OKABE_ITO } from "../../src/report/palette.js"
import { expectSoundSvg, pathsColoured, pathYs } from "./svg-checks.js"

/** Two policies over 200 turns: tokens climb and fall back after each execute pass. */
const example: LineChartSpec = {
  title: "Prompt tokens per turn",
  xLabel: "turn",
  yLabel: "prompt tokens",
  series: ["default", "truncation"].map((name, policy) => ({
    name,
    points: Array.from({ length: 200 }, (_, turn) => ({
      x: turn + 1,
      y: 8000 + ((turn * (900 + policy * 150)) % 90_000),
    })),
  })),
  referenceLines: [
    { y: 128_000, label: "window" },
    { y: 102_400, label: "execute threshold" },
  ],
}

/** The y pixel of the y-axis tick labelled `label`. */
function tickY(svg: string, label: string): number {
  const match = new RegExp(`<text x="[\\d.]+" y="([\\d.]+)" dy="0.35em">${label}</text>`).exec(svg)
  return Number(match?.[1])
}

describe("lineChart", () => {
  it("renders the same bytes for the same spec", async () => {
    const svg = lineChart(example)
    expect(lineChart(structuredClone(example))).toBe(svg)
    expectSoundSvg(svg)
    await expect(svg).toMatchFileSnapshot("./golden/line-chart.svg")
  })

  it("keeps a one-turn spike among 10,000 points as the path's highest point, in a small path", () => {
    const points = Array.from({ length: 10_000 }, (_, turn) => ({
      x: turn,
      y: turn === 6_789 ? 100_000 : 20_000 + (turn % 17) * 100,
    }))
    const svg = lineChart({ title: "spike", series: [{ name: "default", points }] })
    const [path = ""] = pathsColoured(svg, OKABE_ITO[0])
    expect(Math.min(...pathYs(path))).toBeCloseTo(tickY(svg, "100k"), 1)
    expect(pathYs(path).length).toBeLessThan(2 * 800)
    expect(svg.length).toBeLessThan(40_000)
  })

  it("raises the y axis to show reference lines above the data, and labels them", () => {
    const svg = lineChart({ ...example, referenceLines: [{ y: 200_000, label: "window 200k" }] })
    expect(tickY(svg, "200k")).toBeGreaterThan(0)
    expect(svg).toContain(">window 200k</text>")
    expect(svg).toContain('stroke-dasharray="6 4"')
  })

  it("ends the y axis at yMax and leaves out reference lines above it", () => {
    const svg = lineChart({ ...example, yMax: 50_000 })
    expect(tickY(svg, "50k")).toBeGreaterThan(0)
    expect(svg).not.toContain(">60k<")
    expect(svg).not.toContain("execute threshold")
  })

  it("escapes the title, series names and reference labels", () => {
    const svg = lineChart({
      title: `a <b> & "c"`,
      series: [
        {
          name: "x<y & 'z'",
          points: [
            { x: 1, y: 2 },
            { x: 2, y: 3 },
          ],
        },
      ],
      referenceLines: [{ y: 2, label: "<&>" }],
    })
    expectSoundSvg(svg)
    expect(svg).toContain("<title>a &lt;b&gt; &amp; &quot;c&quot;</title>")
    expect(svg).toContain("x&lt;y &amp; &apos;z&apos;")
    expect(svg).toContain("&lt;&amp;&gt;")
  })

  it("puts the legend to the right of the plot", () => {
    const svg = lineChart(example)
    const clip = /<clipPath id="plot-area"><rect x="([\d.]+)" y="[\d.]+" width="([\d.]+)"/.exec(svg)
    const plotRight = Number(clip?.[1]) + Number(clip?.[2]) - 6
    const legendSwatch =
      /<line x1="([\d.]+)" y1="[\d.]+" x2="[\d.]+" y2="[\d.]+" stroke="#0072B2" stroke-width="2.5"\/>/.exec(svg)
    expect(Number(legendSwatch?.[1])).toBeGreaterThan(plotRight)
  })

  it("draws a single-point series as a dot", () => {
    const svg = lineChart({ title: "one", series: [{ name: "a", points: [{ x: 3, y: 4 }] }] })
    expect(svg).toContain("<circle ")
  })

  it.each<[string, Partial<LineChartSpec>]>([
    ["no series", { series: [] }],
    ["an empty series", { series: [{ name: "a", points: [] }] }],
    ["a single point", { series: [{ name: "a", points: [{ x: 1, y: 1 }] }] }],
    ["all-equal values", { series: [{ name: "a", points: [1, 2, 3].map((x) => ({ x, y: 500 })) }] }],
    [
      "all zeros at one x",
      {
        series: [
          {
            name: "a",
            points: [
              { x: 0, y: 0 },
              { x: 0, y: 0 },
            ],
          },
        ],
      },
    ],
    [
      "non-finite points",
      {
        series: [
          {
            name: "a",
            points: [
              { x: Number.NaN, y: 1 },
              { x: 1, y: Number.POSITIVE_INFINITY },
            ],
          },
        ],
      },
    ],
    ["a NaN yMax", { yMax: Number.NaN }],
    ["a zero yMax", { yMax: 0 }],
    ["a NaN reference line", { referenceLines: [{ y: Number.NaN, label: "x" }] }],
    ["a NaN size", { width: Number.NaN, height: Number.POSITIVE_INFINITY }],
    ["a tiny size", { width: 1, height: 1 }],
    ["an empty title and labels", { title: "", xLabel: "", yLabel: "" }],
  ])("stays well-formed without NaN or Infinity for %s", (_, overrides) => {
    expectSoundSvg(lineChart({ ...example, ...overrides }))
  })
})
