/**
 * Renders the chart examples and prints each document's SHA-256 as JSON: run under Bun by render-chart.test.ts
 * (`BUN_BE_BUN=1 opencode test/report/render-examples.ts`) to compare with the same documents rendered under Node.
 */
import { createHash } from "node:crypto"
import { barChart } from "../../src/report/bar-chart.js"
import { lineChart } from "../../src/report/line-chart.js"
import { scatterChart } from "../../src/report/scatter-chart.js"
import { stackedAreaChart } from "../../src/report/stacked-area-chart.js"
import { AREA_EXAMPLE, BAR_EXAMPLE, LINE_EXAMPLE, SCATTER_EXAMPLE } from "./chart-examples.js"

/** Each example's document, in a fixed order. */
export async function renderExamples(): Promise<Record<string, string>> {
  return {
    line: await lineChart(LINE_EXAMPLE),
    area: await stackedAreaChart(AREA_EXAMPLE),
    scatter: await scatterChart(SCATTER_EXAMPLE),
    bar: await barChart(BAR_EXAMPLE),
  }
}

export function digests(documents: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(documents).map(([name, svg]) => [name, createHash("sha256").update(svg).digest("hex")]))
}

if (process.argv[1]?.endsWith("render-examples.ts")) console.log(JSON.stringify(digests(await renderExamples())))
