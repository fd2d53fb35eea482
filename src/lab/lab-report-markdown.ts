import type { ProbeEvaluation } from "./evaluate-probes.js"
import { formatPolicySummaries, formatReferenceComparison } from "./format-policy-summaries.js"
import { PROMPT_COST_NOTE, type LabExperiments, type LabSettings } from "./lab-json.js"
import { formatFolds, formatRuleAblation } from "./format-rule-experiments.js"
import type { FoldReport } from "./leave-one-out.js"
import type { RuleAblation } from "./rule-ablation.js"
import { formatPromptCost, formatRunCosts } from "./format-prompt-cost.js"
import { formatIsoTokens } from "./format-iso-tokens.js"
import type { IsoTokenPoint } from "./iso-tokens.js"
import type { Probe } from "./probe-file.js"

/** A chart the report links: its file name and what it shows. */
export type ReportChart = { file: string; caption: string }

/** The Markdown report of an Experiment 2 run: settings, both tables, the charts, and the probes each policy lost. */
export function labReportMarkdown(options: {
  evaluation: ProbeEvaluation
  probes: readonly Probe[]
  settings: LabSettings
  charts: readonly ReportChart[]
} & LabExperiments): string {
  const { evaluation, probes, settings } = options
  const traces = [...new Set(probes.map((probe) => probe.trace))]
  const lines = [
    "# Context Lab report",
    "",
    `Experiment 2 (trajectories): ${probes.length} probes from \`${settings.probeFile}\` over ${traces.length} transcripts, ` +
      `windows ${settings.windows.join(", ")} tokens, execute threshold ${settings.thresholdPercent}%, tokens counted with ${settings.encoding}.`,
    "A probe survives when its exact string is in the prompt the engine would send at its need turn. Survival counts",
    "the non-incidental probes; `full` is the unreduced reference, `oracle` is told the probes (the ceiling).",
    "",
    "## Survival and cost per policy and window",
    "",
    "```",
    ...formatPolicySummaries(evaluation.summaries),
    "```",
    "",
    "## Against the references",
    "",
    "Tokens above the oracle (over-fidelity), probes the oracle kept that the policy lost (under-fidelity), prompt",
    "tokens saved against `full` over all calls, and what generating the representations cost (the canonical",
    "record calls no model).",
    "",
    "```",
    ...formatReferenceComparison(evaluation.summaries),
    "```",
    "",
    "## Prompt cost",
    "",
    `Estimated in token units: ${PROMPT_COST_NOTE}`,
    "(a provider bills cache reads at about a tenth). Survival per 1k cost is the survival rate per 1,000 mean cost",
    "tokens per call. The second table is the same per transcript.",
    "",
    "```",
    ...formatPromptCost(evaluation.summaries),
    "```",
    "",
    "```",
    ...formatRunCosts(evaluation.runs),
    "```",
    "",
    ...isoSection(options.isoTokens ?? null),
    ...ruleAblationSection(options.ruleAblation ?? null),
    ...foldsSection(options.folds ?? null),
    ...chartSections(options.charts),
    "## Probes lost",
    "",
    ...lostProbes(evaluation),
    "",
    "## Transcripts",
    "",
    ...traces.map((trace) => `- \`${trace}\``),
    "",
  ]
  const invalid = evaluation.validity.filter((entry) => !entry.valid)
  if (invalid.length > 0) {
    lines.push("## Invalid probes", "", ...invalid.map((entry) => `- \`${entry.probeId}\`: ${entry.problems.join("; ")}`), "")
  }
  return lines.join("\n")
}

function lostProbes(evaluation: ProbeEvaluation): string[] {
  const lines = evaluation.summaries.flatMap((summary) => {
    const lost = evaluation.verdicts.filter(
      (verdict) => verdict.policy === summary.policy && verdict.window === summary.window && verdict.survived === false,
    )
    if (lost.length === 0) return []
    const window = summary.policy === "full" ? "unreduced" : String(summary.window)
    return [`- ${summary.policy} @ ${window}: ${lost.map((verdict) => `\`${verdict.probeId}\` (${verdict.kind})`).join(", ")}`]
  })
  return lines.length === 0 ? ["None."] : lines
}

/** The summary charts first (operating points, survival per kind), then the per-transcript ones in the order given. */
function chartSections(charts: readonly ReportChart[]): string[] {
  const summaryFirst = (chart: ReportChart): number => (chart.file.startsWith("operating-points") ? 0 : chart.file.startsWith("survival-by-kind") ? 1 : 2)
  return [...charts]
    .map((chart, index) => ({ chart, index }))
    .sort((left, right) => summaryFirst(left.chart) - summaryFirst(right.chart) || left.index - right.index)
    .flatMap(({ chart }) => [`## ${chart.caption}`, "", `![${chart.caption}](${chart.file})`, ""])
}

function ruleAblationSection(ablation: RuleAblation | null): string[] {
  if (ablation === null) return []
  return [
    "## Without rules",
    "",
    `Every policy and window again with ${ablation.rules.map((rule) => `\`${rule}\``).join(", ")} switched off:`,
    "survival with all rules and without them, and the probes the rules saved (kept only with them) or lost (kept",
    "only without them).",
    "",
    "```",
    ...formatRuleAblation(ablation),
    "```",
    "",
  ]
}

function foldsSection(report: FoldReport | null): string[] {
  if (report === null) return []
  return [
    "## Leave one transcript out",
    "",
    "Each transcript scored with all rules and again with the rules tuned on it switched off (its fold), so no rule",
    "is scored on a transcript it was tuned on; the pooled rows score every transcript by its own fold.",
    "",
    "```",
    ...formatFolds(report),
    "```",
    "",
  ]
}

function isoSection(points: readonly IsoTokenPoint[] | null): string[] {
  if (points === null || points.length === 0) return []
  return [
    "## At equal cost",
    "",
    "Each baseline replayed at the window where its mean prompt tokens match the default's (within 1%, or the closest",
    "of up to 8 windows tried), and what it kept there.",
    "",
    "```",
    ...formatIsoTokens(points),
    "```",
    "",
  ]
}
