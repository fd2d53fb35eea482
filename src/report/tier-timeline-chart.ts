import type { TopLevelSpec } from "vega-lite"
import { TIERS } from "../historian/fidelity-types.js"
import { axisFormat, chartFrame, chartSize } from "./chart-theme.js"
import { renderChart } from "./render-chart.js"

/** The tiers an episode can be shown at, and "omitted" (left out of the history), most detail first. */
export const TIMELINE_TIERS = [...TIERS, "omitted"] as const

/** One colour per tier, detail from dark to light (Okabe–Ito blue, sky blue, orange, grey; omitted in vermillion). */
export const TIER_COLORS: Readonly<Record<(typeof TIMELINE_TIERS)[number], string>> = {
  full: "#0072B2",
  dense: "#56B4E9",
  compact: "#E69F00",
  anchor: "#999999",
  omitted: "#D55E00",
}

/** One model call: its x (the transcript turn) and each folded episode's tier at it (display id -> tier). */
export type TimelineCall = { x: number; tiers: Readonly<Record<string, string>> }

/** A run of calls over which one episode kept one tier: from the first call's x up to the next call's. */
type Segment = { episode: string; tier: string; from: number; to: number }

/**
 * Each episode's tier over the calls, as horizontal bars: one row per episode (oldest on top), a bar per run of calls
 * at one tier, coloured by tier. An episode's row starts at the call that first folded it. Pure.
 */
export function tierTimelineSpec(options: { title: string; calls: readonly TimelineCall[]; xLabel: string; width?: number }): TopLevelSpec {
  const calls = [...options.calls].sort((a, b) => a.x - b.x)
  const last = calls.at(-1)
  const end = last === undefined ? 1 : last.x + 1
  const ids = [...new Set(calls.flatMap((call) => Object.keys(call.tiers)))].sort((a, b) => Number(a.slice(1)) - Number(b.slice(1)))
  const segments: Segment[] = []
  for (const episode of ids) {
    let open: Segment | null = null
    calls.forEach((call, index) => {
      const tier = call.tiers[episode]
      const next = calls[index + 1]?.x ?? end
      if (open !== null && open.tier === tier) open.to = next
      else {
        if (open !== null) segments.push(open)
        open = tier === undefined ? null : { episode, tier, from: call.x, to: next }
      }
    })
    if (open !== null) segments.push(open)
  }
  const { width } = chartSize({ width: options.width })
  const height = Math.min(4_000, Math.max(200, ids.length * 16))
  const first = calls[0]?.x ?? 0
  return {
    ...chartFrame({ title: options.title, width, height }),
    data: { values: segments },
    mark: { type: "bar" },
    encoding: {
      x: {
        field: "from",
        type: "quantitative",
        title: options.xLabel,
        scale: { domain: [first, end], nice: false, zero: false },
        axis: { ...axisFormat("plain"), grid: true },
      },
      x2: { field: "to" },
      y: { field: "episode", type: "ordinal", sort: ids, title: "episode", axis: { labelFontSize: ids.length > 40 ? 8 : 11 } },
      color: {
        field: "tier",
        type: "nominal",
        sort: [...TIMELINE_TIERS],
        scale: { domain: [...TIMELINE_TIERS], range: TIMELINE_TIERS.map((tier) => TIER_COLORS[tier]) },
        legend: { symbolType: "square", labelExpr: "upper(datum.label)" },
      },
    },
  } as unknown as TopLevelSpec
}

/** The chart as an SVG document (renderChart). */
export function tierTimelineChart(options: Parameters<typeof tierTimelineSpec>[0]): Promise<string> {
  return renderChart(tierTimelineSpec(options))
}
