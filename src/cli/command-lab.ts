import { REPLAY_COUNT_CACHE_CHARS } from "../tokens/counted-text-cache.js"
import { basename, resolve } from "node:path"
import { parseCommandArgs } from "./parse-command-args.js"
import { byTrace, evaluateProbes, type ProbeEvaluation } from "../lab/evaluate-probes.js"
import { formatPolicySummaries, formatReferenceComparison } from "../lab/format-policy-summaries.js"
import { labJson, PROMPT_COST_NOTE, type LabExperiments, type LabSettings } from "../lab/lab-json.js"
import { formatFolds, formatRuleAblation } from "../lab/format-rule-experiments.js"
import { leaveOneOutFolds } from "../lab/leave-one-out.js"
import { parseRuleNames, ruleAblation, type RuleAblation } from "../lab/rule-ablation.js"
import type { RunRecord } from "../lab/summarize-probes.js"
import { recognizersWithout } from "../session/recognizers.js"
import type { Probe } from "../lab/probe-file.js"
import { LAB_POLICIES, type LabPolicy } from "../lab/probe-verdict.js"
import { readProbeFile } from "../lab/read-probe-file.js"
import { writeLabReport } from "../lab/write-lab-report.js"
import { formatIsoTokens } from "../lab/format-iso-tokens.js"
import { formatPromptCost, formatRunCosts } from "../lab/format-prompt-cost.js"
import { isoTokenPoints } from "../lab/iso-tokens.js"
import { createTokenCounterPool } from "../tokens/tiktoken-counter.js"
import type { Result } from "../result.js"
import { EXIT, type CliIo, type ExitCode } from "./cli-io.js"
import { commandLabCost, LAB_COST_HELP } from "./command-lab-cost.js"
import { commandLabTiers, LAB_TIERS_HELP } from "./command-lab-tiers.js"
import { commandLabTraces, LAB_TRACES_HELP } from "./command-lab-traces.js"
import { labCounter, loadLabConfig } from "./lab-setup.js"
import { parseWindowList } from "./parse-number-option.js"
import { createProgress } from "./progress.js"

export const LAB_HELP = `magic-context lab --probes FILE --window N[,N...] [--policies LIST] [--without NAME[,NAME...] | --folds]
                     [--iso-tokens] [--out DIR] [--json] [--config FILE]
magic-context lab tiers --probes FILE [--window N] [--json]
magic-context lab traces FILE... [--window N] [--json]
magic-context lab cost FILE... [--window N[,N...]] [--price-list LIST] [--json]

The Context Lab. With --probes it runs Experiment 2 (trajectories): it replays every transcript the probes name
under each policy at each window, in a fresh in-memory store (the live store is never used, no model is called),
and checks each probe in the prompt the engine would send at the probe's "need" turn. It reports per policy and
window: survival of the non-incidental probes overall and by kind, mean and max prompt tokens, survival per 1,000
prompt tokens, floor violations, prefix changes per 100 calls, tier switches, tokens above the oracle and probes
lost below it, tokens saved against "full", what generating the representations cost, and the estimated prompt
cost (each call's prefix shared with the previous call's prompt counts as cached at 0.1 the price), in total, per
call and per transcript, with survival per 1,000 cost tokens.

  --probes FILE    a JSON array of { id, trace, kind, t, need, exact } (see fixtures/probes/README.md)
  --window N,...   usable windows in tokens, e.g. 32000,64000
  --policies LIST  comma-separated, from ${LAB_POLICIES.join(", ")}
                   (default: all; "full", the unreduced reference, always runs)
  --out DIR        also write DIR/report.md, DIR/lab.json and SVG charts
  --json           print the JSON object (settings, summary, runs, probes, invalid; without, folds) instead of the
                   tables
  --iso-tokens     also compare at equal cost: each of flat, truncation and age-only (those in --policies) at the
                   window where its mean prompt tokens match the default's (a search of up to 8 replays each)
  --without NAMES  ablation: also replay every policy and window with these rules switched off (recognizer names
                   from src/session/recognizers.ts, host tool rows such as tool:apply_patch) and report survival
                   with and without them and the probes they saved
  --folds          leave one transcript out: score each transcript with all rules and with the rules tuned on it
                   switched off, the default policy plus those in --policies (default: only the default)
  --config FILE    an extra magic-context.jsonc applied over the usual files (threshold, pins, tokenizer)

Subcommands:
  tiers    Experiment 1: static quality of each tier per generation strategy (magic-context lab tiers --help)
  traces   the ecology of real sessions: old context, what it is made of, what each policy would do
  cost     the estimated prompt cost with magic-context and without it, per window and price list

Exit status: 0 when every probe was evaluated, 1 when some probe is invalid or a file cannot be read, 2 for a
wrong command line.`

/** The policies `--iso-tokens` matches to the default's cost. */
const ISO_BASELINES = ["flat", "truncation", "age-only"] as const
type IsoBaseline = (typeof ISO_BASELINES)[number]

/** `magic-context lab`: Experiment 2, or the `tiers` and `traces` subcommands. */
export async function commandLab(io: CliIo): Promise<ExitCode> {
  const [first, ...rest] = io.args
  if (first === "tiers") return commandLabTiers({ ...io, args: rest })
  if (first === "traces") return commandLabTraces({ ...io, args: rest })
  if (first === "cost") return commandLabCost({ ...io, args: rest })
  return commandLabTrajectories(io)
}

async function commandLabTrajectories(io: CliIo): Promise<ExitCode> {
  const parsed = parseCommandArgs({
    args: io.args,
    allowPositionals: true,
    options: {
      probes: { type: "string" },
      window: { type: "string" },
      policies: { type: "string" },
      out: { type: "string" },
      json: { type: "boolean" },
      config: { type: "string" },
      "iso-tokens": { type: "boolean" },
      without: { type: "string" },
      folds: { type: "boolean" },
      help: { type: "boolean" },
    },
  })
  if (parsed.values.help) {
    io.stdout([LAB_HELP, "", LAB_TIERS_HELP, "", LAB_TRACES_HELP, "", LAB_COST_HELP].join("\n"))
    return EXIT.ok
  }
  const usage = (message: string): ExitCode => {
    io.stderr(`${message}\n\n${LAB_HELP}`)
    return EXIT.usage
  }
  if (parsed.positionals.length > 0) return usage(`lab takes no positional arguments, got "${parsed.positionals.join(" ")}"`)
  if (!parsed.values.probes) return usage("lab needs --probes FILE")
  if (!parsed.values.window) return usage("lab needs --window N[,N...]")
  const windows = parseWindowList(parsed.values.window, "--window")
  if (!windows.ok) return usage(windows.error)
  if (parsed.values.without !== undefined && parsed.values.folds) return usage("--without and --folds are separate experiments: give one")
  const rulesOff = parsed.values.without === undefined ? null : parseRuleNames(parsed.values.without)
  if (rulesOff !== null && !rulesOff.ok) return usage(rulesOff.error)
  const policies = parsePolicies(parsed.values.policies, parsed.values.folds === true)
  if (!policies.ok) return usage(policies.error)
  const isoBaselines = policies.value.filter((policy): policy is IsoBaseline => (ISO_BASELINES as readonly string[]).includes(policy))
  if (parsed.values["iso-tokens"] && (!policies.value.includes("default") || isoBaselines.length === 0)) {
    return usage(`--iso-tokens compares the default with ${ISO_BASELINES.join(", ")}: --policies must name default and at least one of them`)
  }

  const config = loadLabConfig(io, parsed.values.config)
  const probeFile = resolve(io.cwd, parsed.values.probes)
  const probes = readProbeFile(probeFile)
  if (!probes.ok) {
    io.stderr(probes.error)
    return EXIT.problem
  }

  const pool = createTokenCounterPool({ cacheChars: REPLAY_COUNT_CACHE_CHARS })
  try {
    const counter = labCounter(pool, config)
    const grid = { policies: policies.value, windows: windows.value, counter, config }
    const phase = (title: string) =>
      replayProgress(io, { title, probes: probes.value, policies: policies.value.length, windows: windows.value.length, quiet: parsed.values.json === true })
    const main = phase("lab")
    const evaluation = await evaluateProbes({ ...grid, probes: probes.value, onRun: main.onRun })
    main.finish()
    const ruleAblation =
      rulesOff === null ? null : await ablateRules({ grid, probes: probes.value, rules: rulesOff.value, evaluation, progress: phase("lab (without)") })
    const fold = phase("lab (folds)")
    const folds = parsed.values.folds ? await leaveOneOutFolds({ ...grid, probes: probes.value, allRules: evaluation, onRun: fold.onRun }) : null
    fold.finish()
    if (parsed.values["iso-tokens"]) {
      io.stderr(`lab: matching ${isoBaselines.join(", ")} to the default's cost at each window (up to 8 replays each)`)
    }
    const isoTokens = parsed.values["iso-tokens"]
      ? await isoTokenPoints({ evaluation, probes: probes.value, baselines: isoBaselines, windows: windows.value, counter, config })
      : null
    const settings: LabSettings = {
      probeFile: parsed.values.probes,
      encoding: counter.encoding,
      thresholdPercent: config.execute_threshold,
      windows: windows.value,
    }
    const experiments: LabExperiments = { isoTokens, ruleAblation, folds }
    if (parsed.values.json) io.stdout(JSON.stringify(labJson({ evaluation, settings, ...experiments }), null, 2))
    else printTrajectories({ io, evaluation, probes: probes.value, settings, experiments })
    if (parsed.values.out) {
      const directory = resolve(io.cwd, parsed.values.out)
      const written = await writeLabReport({ directory, evaluation, probes: probes.value, settings, ...experiments })
      io.stderr(`lab: wrote ${written.map((file) => basename(file)).join(", ")} to ${parsed.values.out}`)
    }
    return evaluation.validity.every((entry) => entry.valid) ? EXIT.ok : EXIT.problem
  } finally {
    pool.dispose()
  }
}

/**
 * A progress bar over one phase's replays (each transcript unreduced, then every policy at every window) on a
 * terminal; nothing when stderr is not a terminal or with --json.
 */
function replayProgress(io: CliIo, options: { title: string; probes: readonly Probe[]; policies: number; windows: number; quiet: boolean }) {
  const bar = createProgress(io, {
    title: options.title,
    total: byTrace(options.probes).length * (1 + options.policies * options.windows),
    quiet: options.quiet,
  })
  return {
    onRun: (run: RunRecord) => bar.step(`${basename(run.trace)} ${run.policy} @ ${run.policy === "full" ? "unreduced" : run.window}`),
    finish: bar.finish,
  }
}

/** `--without`: every policy and window again with `rules` off, compared with the all-rules `evaluation`. */
async function ablateRules(options: {
  grid: Omit<Parameters<typeof evaluateProbes>[0], "probes">
  probes: readonly Probe[]
  rules: readonly string[]
  evaluation: ProbeEvaluation
  progress: { onRun: (run: RunRecord) => void; finish: () => void }
}): Promise<RuleAblation> {
  const { grid, rules } = options
  const withoutRules = await evaluateProbes({
    ...grid,
    probes: options.probes,
    recognizers: recognizersWithout(rules),
    onRun: options.progress.onRun,
  })
  options.progress.finish()
  return ruleAblation({ rules, withRules: options.evaluation, withoutRules })
}

/** `--policies`: all policies when absent; with `--folds`, the default plus those named (only the default when absent). */
function parsePolicies(raw: string | undefined, folds: boolean): Result<Exclude<LabPolicy, "full">[]> {
  if (raw === undefined) return { ok: true, value: folds ? ["default"] : [...LAB_POLICIES] }
  const names = [...(folds ? ["default"] : []), ...raw.split(",").map((name) => name.trim())].filter((name) => name !== "" && name !== "full")
  const unknown = names.filter((name) => !(LAB_POLICIES as readonly string[]).includes(name))
  if (unknown.length > 0) {
    return { ok: false, error: `--policies: unknown ${unknown.map((name) => `"${name}"`).join(", ")}; expected names from ${LAB_POLICIES.join(", ")}` }
  }
  if (names.length === 0) return { ok: false, error: `--policies: expected at least one of ${LAB_POLICIES.join(", ")}` }
  return { ok: true, value: [...new Set(names)] as Exclude<LabPolicy, "full">[] }
}

function printTrajectories(options: {
  io: CliIo
  evaluation: ProbeEvaluation
  probes: readonly Probe[]
  settings: LabSettings
  experiments: LabExperiments
}): void {
  const { io, evaluation, probes, settings } = options
  const { isoTokens, ruleAblation: ablation, folds } = options.experiments
  const traces = new Set(probes.map((probe) => probe.trace)).size
  io.stdout(
    `Experiment 2 (trajectories): ${probes.length} probes over ${traces} transcripts (${settings.probeFile}); ` +
      `tokens counted with ${settings.encoding}; execute threshold ${settings.thresholdPercent}%`,
  )
  io.stdout("")
  for (const line of formatPolicySummaries(evaluation.summaries)) io.stdout(line)
  io.stdout("")
  for (const line of formatReferenceComparison(evaluation.summaries)) io.stdout(line)
  io.stdout("")
  io.stdout(`Prompt cost: ${PROMPT_COST_NOTE}`)
  for (const line of formatPromptCost(evaluation.summaries)) io.stdout(line)
  io.stdout("")
  for (const line of formatRunCosts(evaluation.runs)) io.stdout(line)
  io.stdout("")
  if (isoTokens) {
    io.stdout("At equal cost: each baseline at the window where its mean prompt tokens match the default's")
    for (const line of formatIsoTokens(isoTokens)) io.stdout(line)
    io.stdout("")
  }
  if (ablation) {
    io.stdout(`Without ${ablation.rules.join(", ")}: survival with all rules and without these, and the probes they saved`)
    for (const line of formatRuleAblation(ablation)) io.stdout(line)
    io.stdout("")
  }
  if (folds) {
    io.stdout("Leave one transcript out: each transcript with all rules and without the rules tuned on it (its fold)")
    for (const line of formatFolds(folds)) io.stdout(line)
    io.stdout("")
  }
  for (const summary of evaluation.summaries) {
    const lost = evaluation.verdicts.filter(
      (verdict) => verdict.policy === summary.policy && verdict.window === summary.window && verdict.survived === false,
    )
    if (lost.length === 0) continue
    const window = summary.policy === "full" ? "unreduced" : summary.window
    io.stdout(`lost under ${summary.policy} @ ${window}: ${lost.map((verdict) => `${verdict.probeId}@${verdict.needTurn}`).join(", ")}`)
  }
  for (const entry of evaluation.validity.filter((item) => !item.valid)) {
    io.stdout(`invalid probe ${entry.probeId}: ${entry.problems.join("; ")}`)
  }
}
