import type { BarChartSpec } from "../../src/report/bar-chart.js"
import type { LineChartSpec } from "../../src/report/line-chart.js"
import type { ScatterChartSpec } from "../../src/report/scatter-chart.js"
import type { StackedAreaChartSpec } from "../../src/report/stacked-area-chart.js"

/** Two policies over 200 turns: tokens climb and fall back after each execute pass. */
export const LINE_EXAMPLE: LineChartSpec = {
  title: "Prompt tokens per turn",
  xLabel: "turn",
  yLabel: "prompt tokens",
  series: ["default", "truncation"].map((name, policy) => ({
    name,
    points: Array.from({ length: 200 }, (_, turn) => ({ x: turn + 1, y: 8000 + ((turn * (900 + policy * 150)) % 90_000) })),
  })),
  referenceLines: [
    { y: 128_000, label: "window" },
    { y: 102_400, label: "execute threshold" },
  ],
}

/** Compartments per tier over 300 calls: new ones arrive every 20 calls and move down the tiers. */
export const AREA_EXAMPLE: StackedAreaChartSpec = {
  title: "Compartments per tier",
  xLabel: "source record",
  yLabel: "compartments",
  categories: ["FULL", "DENSE", "COMPACT", "ANCHOR"],
  rows: Array.from({ length: 300 }, (_, call) => ({
    x: call,
    values: { FULL: Math.min(3, Math.floor(call / 20)), DENSE: Math.floor(call / 40), COMPACT: Math.floor(call / 60), ANCHOR: Math.floor(call / 90) },
  })),
}

/** Operating points of six policies at two windows, two of them on the same spot. */
export const SCATTER_EXAMPLE: ScatterChartSpec = {
  title: "Survival against mean prompt tokens",
  xLabel: "mean prompt tokens per model call",
  yLabel: "probes surviving",
  yFormat: "percent",
  yMax: 1,
  points: [
    ...[
      ["truncation", 14_050, 0.31],
      ["flat", 13_680, 0.76],
      ["age-only", 16_330, 0.37],
      ["default", 13_920, 0.83],
      ["oracle", 14_590, 1],
      ["oracle-promotion", 13_930, 0.81],
    ].map(([label, x, y]) => ({ label: label as string, x: x as number, y: y as number, series: "window 32000" })),
    ...[
      ["truncation", 26_870, 0.3],
      ["flat", 23_290, 0.94],
      ["age-only", 24_200, 0.37],
      ["default", 25_650, 0.94],
      ["oracle", 23_020, 1],
      ["oracle-promotion", 25_650, 0.94],
    ].map(([label, x, y]) => ({ label: label as string, x: x as number, y: y as number, series: "window 64000" })),
  ],
}

/** Survival per kind for three policies; one policy has no probe of one kind. */
export const BAR_EXAMPLE: BarChartSpec = {
  title: "Survival per kind of probe (window 32000)",
  categories: ["constraint", "identifier", "decision_rationale", "location"],
  valueFormat: "percent",
  valueMax: 1,
  valueLabel: "probes surviving",
  series: [
    { name: "default", values: [1, 0.8, 0.5, null] },
    { name: "flat", values: [1, 0.7, 0.3, 0.6] },
    { name: "truncation", values: [0.9, 0.2, 0.1, 0.2] },
  ],
}
