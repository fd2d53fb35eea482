import { describe, expect, it } from "vitest"
import { scatterChart, scatterChartSpec } from "../../src/report/scatter-chart.js"
import { SCATTER_EXAMPLE } from "./chart-examples.js"
import { expectSoundSvg, visibleTexts } from "./svg-checks.js"

describe("scatterChart", () => {
  it("renders the same bytes for the same spec, a sound SVG with the title, axes, legend and percent ticks", async () => {
    const svg = await scatterChart(SCATTER_EXAMPLE)
    expect(await scatterChart(structuredClone(SCATTER_EXAMPLE))).toBe(svg)
    expectSoundSvg(svg)
    expect(visibleTexts(svg)).toEqual(expect.arrayContaining([SCATTER_EXAMPLE.title, "probes surviving", "window 32000", "window 64000", "100%", "30%"]))
    await expect(svg).toMatchFileSnapshot("./golden/scatter-chart.svg")
  })

  it("labels every point beside its marker, two points on one spot included, with no two labels overlapping", async () => {
    const svg = await scatterChart(SCATTER_EXAMPLE)
    const names = new Set(SCATTER_EXAMPLE.points.map((point) => point.label))
    const labels = [...svg.matchAll(/<text text-anchor="(start|middle|end)" transform="translate\(([-\d.]+),([-\d.]+)\)"[^>]*opacity="1">([^<]*)<\/text>/g)]
      .map((match) => ({ anchor: match[1], x: Number(match[2]), y: Number(match[3]), text: match[4] ?? "" }))
      .filter((label) => names.has(label.text))
    expect(labels.map((label) => label.text).sort()).toEqual(SCATTER_EXAMPLE.points.map((point) => point.label).sort())
    // Boxes from the estimate Vega places them with (about 0.6 of the font size per character, 11 px high).
    const box = (label: (typeof labels)[number]) => {
      const width = label.text.length * 11 * 0.6
      const left = label.anchor === "start" ? label.x : label.anchor === "end" ? label.x - width : label.x - width / 2
      return { left, right: left + width, top: label.y - 11, bottom: label.y }
    }
    for (const [index, a] of labels.entries()) {
      for (const b of labels.slice(index + 1)) {
        const [p, q] = [box(a), box(b)]
        const overlap = p.left < q.right - 1 && q.left < p.right - 1 && p.top < q.bottom - 1 && q.top < p.bottom - 1
        expect(overlap, `${a.text} and ${b.text}`).toBe(false)
      }
    }
  })

  it("gives each series a colour and a shape in order of first appearance, and joins a series' points on request", () => {
    const spec = scatterChartSpec({ ...SCATTER_EXAMPLE, connectSeries: true }) as unknown as {
      layer: { mark: { type: string }; encoding: { color: { scale: { domain: string[] } }; shape?: { scale: { domain: string[]; range: string[] } } } }[]
    }
    expect(spec.layer.map((layer) => layer.mark.type)).toEqual(["line", "point"])
    expect(spec.layer[1]?.encoding.shape?.scale.domain).toEqual(["window 32000", "window 64000"])
    expect(spec.layer[1]?.encoding.shape?.scale.range.slice(0, 2)).toEqual(["circle", "square"])
    expect((scatterChartSpec(SCATTER_EXAMPLE) as unknown as { layer: unknown[] }).layer).toHaveLength(1)
  })

  it("skips non-finite points", () => {
    const spec = scatterChartSpec({ title: "t", points: [{ x: 1, y: Number.NaN, label: "a", series: "s" }, { x: 2, y: 3, label: "b", series: "s" }] })
    expect((spec as unknown as { data: { values: unknown[] } }).data.values).toEqual([{ x: 2, y: 3, label: "b", series: "s" }])
  })
})
