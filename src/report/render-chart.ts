import type { Spec as VegaSpec } from "vega"
import type { TopLevelSpec } from "vega-lite"

/** A change to the Vega spec Vega-Lite compiled, for what Vega-Lite cannot say (labels placed clear of the points). */
export type VegaAdjustment = (spec: VegaSpec) => VegaSpec

/**
 * Renders a Vega-Lite spec to a standalone SVG document, headless (Vega's scenegraph, no DOM, no canvas) and
 * deterministically: text widths are always Vega's estimate (were the `canvas` package ever installed, Vega would
 * measure with it and the bytes would depend on the machine's fonts), and the SVG's clip and gradient ids restart at
 * every chart. Renders one chart at a time (the id counter is Vega's, process-wide). Vega is loaded on first use, so
 * nothing that does not draw a chart loads it.
 */
export async function renderChart(spec: TopLevelSpec, adjust: VegaAdjustment = (compiled) => compiled): Promise<string> {
  const [vega, vegaLite] = await Promise.all([import("vega"), import("vega-lite")])
  // Exported by vega-scenegraph but missing from vega's typings.
  const { textMetrics } = vega as unknown as { textMetrics: { width: unknown; estimateWidth: unknown } }
  textMetrics.width = textMetrics.estimateWidth
  vega.resetSVGDefIds()
  const view = new vega.View(vega.parse(adjust(vegaLite.compile(spec).spec)), { renderer: "none" })
  try {
    return `${await view.toSVG()}\n`
  } finally {
    view.finalize()
  }
}
