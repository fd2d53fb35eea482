import { basename } from "node:path"
import { TIERS } from "../historian/fidelity-types.js"
import { barChart } from "../report/bar-chart.js"
import { lineChart } from "../report/line-chart.js"
import { scatterChart } from "../report/scatter-chart.js"
import { stackedAreaChart } from "../report/stacked-area-chart.js"
import type { ProbeEvaluation } from "./evaluate-probes.js"
import type { LabSettings } from "./lab-json.js"
import { PROBE_KINDS } from "./probe-file.js"

/** One chart of the report: its file name, caption and SVG text. */
export type LabChart = { file: string; caption: string; svg: string }

/** A chart before it is drawn. */
type PlannedChart = { file: string; caption: string; draw: () => Promise<string> }

/**
 * The report's charts: per transcript and window, prompt tokens per model call per policy (the unreduced `full`
 * left out: it would flatten every other line) and the default policy's tiers over the calls; then survival
 * against mean prompt tokens (the operating points), and survival per kind per policy at each window.
 */
export async function labCharts(evaluation: ProbeEvaluation, settings: LabSettings): Promise<LabChart[]> {
  const charts: LabChart[] = []
  // One at a time: Vega's SVG ids are process-wide (renderChart).
  for (const planned of plannedCharts(evaluation, settings)) {
    charts.push({ file: planned.file, caption: planned.caption, svg: await planned.draw() })
  }
  return charts
}

function plannedCharts(evaluation: ProbeEvaluation, settings: LabSettings): PlannedChart[] {
  const charts: PlannedChart[] = []
  const traces = [...new Set(evaluation.runs.map((run) => run.trace))]
  for (const trace of traces) {
    for (const window of settings.windows) {
      const runs = evaluation.runs.filter((run) => run.trace === trace && run.window === window && run.policy !== "full")
      if (runs.length === 0) continue
      const slug = `${slugOf(trace)}-${window}`
      const name = basename(trace)
      charts.push({
        file: `tokens-${slug}.svg`,
        caption: `Prompt tokens per model call, ${name}, window ${window}`,
        draw: () => lineChart({
          title: `Prompt tokens per model call: ${name} (window ${window})`,
          xLabel: "source record of the model call",
          yLabel: "prompt tokens",
          series: runs.map((run) => ({ name: run.policy, points: run.points.map((point) => ({ x: point.turn, y: point.tokens })) })),
          referenceLines: [
            { y: window, label: "window" },
            { y: Math.round((window * settings.thresholdPercent) / 100), label: `execute threshold ${settings.thresholdPercent}%` },
          ],
        }),
      })
      const defaults = runs.find((run) => run.policy === "default")
      if (defaults && defaults.points.some((point) => TIERS.some((tier) => point.tiers[tier] > 0))) {
        charts.push({
          file: `tiers-${slug}.svg`,
          caption: `Compartments per tier under the default policy, ${name}, window ${window}`,
          draw: () => stackedAreaChart({
            title: `Compartments per tier, default policy: ${name} (window ${window})`,
            xLabel: "source record of the model call",
            yLabel: "compartments",
            categories: TIERS.map((tier) => tier.toUpperCase()),
            rows: defaults.points.map((point) => ({
              x: point.turn,
              values: Object.fromEntries(TIERS.map((tier) => [tier.toUpperCase(), point.tiers[tier]])),
            })),
          }),
        })
      }
    }
  }
  const measured = evaluation.summaries.filter((summary) => summary.policy !== "full" && summary.survival.rate !== null)
  if (measured.length > 0) {
    charts.push({
      file: "operating-points.svg",
      caption: "Survival against mean prompt tokens (operating points)",
      draw: () => scatterChart({
        title: "Survival of non-incidental probes against mean prompt tokens",
        xLabel: "mean prompt tokens per model call",
        yLabel: "probes surviving",
        yFormat: "percent",
        yMax: 1,
        points: measured.map((summary) => ({
          x: summary.meanPromptTokens,
          y: summary.survival.rate as number,
          label: summary.policy,
          series: `window ${summary.window}`,
        })),
      }),
    })
  }
  for (const window of settings.windows) {
    const summaries = evaluation.summaries.filter((summary) => summary.window === window && summary.policy !== "full")
    const kinds = PROBE_KINDS.filter((kind) => summaries.some((summary) => summary.byKind[kind].probes > 0))
    if (summaries.length === 0 || kinds.length === 0) continue
    charts.push({
      file: `survival-by-kind-${window}.svg`,
      caption: `Survival per kind of probe, window ${window}`,
      draw: () => barChart({
        title: `Survival per kind of probe (window ${window})`,
        categories: kinds,
        valueFormat: "percent",
        valueMax: 1,
        valueLabel: "probes surviving",
        series: summaries.map((summary) => ({ name: summary.policy, values: kinds.map((kind) => summary.byKind[kind].rate) })),
      }),
    })
  }
  return charts
}

/** A file-name-safe name for a transcript path (its base name, `#N` kept as `-N`). */
function slugOf(trace: string): string {
  return basename(trace)
    .replace(/\.(jsonl|json|traj)(#|$)/, "$2")
    .replace(/[^A-Za-z0-9]+/g, "-")
    .replace(/^-|-$/g, "")
}
