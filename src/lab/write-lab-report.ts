import { mkdirSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import type { ProbeEvaluation } from "./evaluate-probes.js"
import { labJson, type LabExperiments, type LabSettings } from "./lab-json.js"
import type { Probe } from "./probe-file.js"
import { labCharts } from "./lab-charts.js"
import { labReportMarkdown } from "./lab-report-markdown.js"

/**
 * Writes the Lab's report into `directory` (created if needed): lab.json, report.md and the SVG charts it shows.
 * Returns the files written.
 */
export async function writeLabReport(options: {
  directory: string
  evaluation: ProbeEvaluation
  probes: readonly Probe[]
  settings: LabSettings
} & LabExperiments): Promise<string[]> {
  mkdirSync(options.directory, { recursive: true })
  const charts = await labCharts(options.evaluation, options.settings)
  const files: [string, string][] = [
    ["lab.json", `${JSON.stringify(labJson(options), null, 2)}\n`],
    ["report.md", labReportMarkdown({ ...options, charts })],
    ...charts.map((chart): [string, string] => [chart.file, chart.svg]),
  ]
  for (const [name, content] of files) writeFileSync(join(options.directory, name), content)
  return files.map(([name]) => join(options.directory, name))
}
