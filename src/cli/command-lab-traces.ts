import { REPLAY_COUNT_CACHE_CHARS } from "../tokens/counted-text-cache.js"
import { resolve } from "node:path"
import { parseCommandArgs } from "./parse-command-args.js"
import { TIERS } from "../historian/fidelity-types.js"
import { rounded } from "../lab/lab-json.js"
import { MATERIALS, traceEcology, type TraceEcology } from "../lab/trace-ecology.js"
import { isPluginError } from "../plugin-error.js"
import { createTokenCounterPool } from "../tokens/tiktoken-counter.js"
import { readTranscript } from "../transcript/read-transcript.js"
import { skippedInputLines } from "../transcript/skipped-records.js"
import { EXIT, type CliIo, type ExitCode } from "./cli-io.js"
import { formatTable } from "../report/format-table.js"
import { labCounter, loadLabConfig } from "./lab-setup.js"
import { MIN_WINDOW_TOKENS, parseNumberOption } from "./parse-number-option.js"

/** The window the ecology replays at when none is given. */
export const DEFAULT_ECOLOGY_WINDOW = 32_000

export const LAB_TRACES_HELP = `magic-context lab traces FILE[#N]... [--window N] [--json] [--config FILE]

The ecology of real sessions, per transcript: how much old context exists (the unreduced prompt outside the fixed
prompt and the protected recent window), which material dominates aged history (tokens by user text, assistant
text, reasoning, tool input, tool output, files) and which kinds of fact the canonical record finds in it, how often
each tier would be selected, and what each policy would save and how often it would switch, at --window (default
${DEFAULT_ECOLOGY_WINDOW}).`

/** `magic-context lab traces`. */
export async function commandLabTraces(io: CliIo): Promise<ExitCode> {
  const parsed = parseCommandArgs({
    args: io.args,
    allowPositionals: true,
    options: { window: { type: "string" }, json: { type: "boolean" }, config: { type: "string" }, help: { type: "boolean" } },
  })
  if (parsed.values.help) {
    io.stdout(LAB_TRACES_HELP)
    return EXIT.ok
  }
  if (parsed.positionals.length === 0) {
    io.stderr(`lab traces needs at least one transcript file\n\n${LAB_TRACES_HELP}`)
    return EXIT.usage
  }
  const window = parseNumberOption(parsed.values.window, "--window", { min: MIN_WINDOW_TOKENS, integer: true })
  if (typeof window === "object") {
    io.stderr(window.error)
    return EXIT.usage
  }
  const config = loadLabConfig(io, parsed.values.config)
  const pool = createTokenCounterPool({ cacheChars: REPLAY_COUNT_CACHE_CHARS })
  const results: TraceEcology[] = []
  let failed = false
  try {
    const counter = labCounter(pool, config)
    for (const file of parsed.positionals) {
      try {
        const transcript = readTranscript(resolve(io.cwd, file))
        for (const line of skippedInputLines(file, transcript)) io.stderr(line)
        results.push(await traceEcology({ transcript, file, window: window ?? DEFAULT_ECOLOGY_WINDOW, counter, config }))
      } catch (error) {
        if (!isPluginError(error)) throw error
        io.stderr(error.message)
        failed = true
      }
    }
    if (parsed.values.json) io.stdout(JSON.stringify(ecologyJson(results, window ?? DEFAULT_ECOLOGY_WINDOW, counter.encoding), null, 2))
    else printEcology(io, results, window ?? DEFAULT_ECOLOGY_WINDOW, counter.encoding)
    return failed ? EXIT.problem : EXIT.ok
  } finally {
    pool.dispose()
  }
}

/** The `lab traces --json` object; shares are fractions, numbers rounded so two runs print the same bytes. */
export function ecologyJson(results: readonly TraceEcology[], window: number, encoding: string): Record<string, unknown> {
  return {
    settings: { window, encoding },
    traces: results.map((entry) => ({
      ...entry,
      oldContext: {
        meanTokens: rounded(entry.oldContext.meanTokens, 1),
        meanShare: rounded(entry.oldContext.meanShare, 4),
        finalTokens: entry.oldContext.finalTokens,
        finalShare: rounded(entry.oldContext.finalShare, 4),
      },
      policies: entry.policies.map((policy) => ({
        ...policy,
        meanPromptTokens: rounded(policy.meanPromptTokens, 1),
        savedShare: rounded(policy.savedShare, 4),
        prefixChangesPer100: rounded(policy.prefixChangesPer100, 2),
      })),
    })),
  }
}

function printEcology(io: CliIo, results: readonly TraceEcology[], window: number, encoding: string): void {
  const percent = (share: number): string => `${(share * 100).toFixed(1)}%`
  io.stdout(`Ecology of ${results.length} sessions at a ${window}-token window (tokens counted with ${encoding})`)
  io.stdout("")
  io.stdout("Old context (unreduced prompt outside the fixed prompt and the protected window):")
  for (const line of formatTable(
    ["transcript", "format", "records", "calls", "final prompt", "old mean", "old share", "old final", "old final share"],
    results.map((entry) => [
      entry.file,
      entry.format,
      entry.records,
      entry.modelCalls,
      entry.finalPromptTokens,
      Math.round(entry.oldContext.meanTokens),
      percent(entry.oldContext.meanShare),
      entry.oldContext.finalTokens,
      percent(entry.oldContext.finalShare),
    ]),
  ))
    io.stdout(line)
  io.stdout("")
  io.stdout("Aged history (what the default policy cut into compartments), tokens by material:")
  for (const line of formatTable(
    ["transcript", "compartments", ...MATERIALS, "dominant"],
    results.map((entry) => {
      const total = MATERIALS.reduce((sum, name) => sum + entry.agedMaterial[name], 0)
      const dominant = [...MATERIALS].sort((left, right) => entry.agedMaterial[right] - entry.agedMaterial[left])[0]
      const share = dominant === undefined || total === 0 ? "-" : `${dominant} ${percent(entry.agedMaterial[dominant] / total)}`
      return [entry.file, entry.compartments, ...MATERIALS.map((name) => entry.agedMaterial[name]), share]
    }),
  ))
    io.stdout(line)
  io.stdout("")
  io.stdout("Facts the canonical record found in aged history, by kind:")
  const kinds = Object.keys(results[0]?.agedFacts ?? {})
  for (const line of formatTable(
    ["transcript", ...kinds],
    results.map((entry) => [entry.file, ...kinds.map((kind) => entry.agedFacts[kind as keyof TraceEcology["agedFacts"]])]),
  ))
    io.stdout(line)
  io.stdout("")
  io.stdout("Tier selections under the default policy (compartment × model call):")
  for (const line of formatTable(
    ["transcript", ...TIERS],
    results.map((entry) => {
      const total = TIERS.reduce((sum, tier) => sum + entry.tierSelections[tier], 0)
      return [entry.file, ...TIERS.map((tier) => (total === 0 ? "-" : `${entry.tierSelections[tier]} (${percent(entry.tierSelections[tier] / total)})`))]
    }),
  ))
    io.stdout(line)
  io.stdout("")
  io.stdout("What each policy would save against the unreduced session, and how often it would switch:")
  for (const line of formatTable(
    ["transcript", "policy", "mean tokens", "saved", "tier switches", "prefix changes/100", "execute passes"],
    results.flatMap((entry) =>
      entry.policies.map((policy) => [
        entry.file,
        policy.policy,
        Math.round(policy.meanPromptTokens),
        percent(policy.savedShare),
        policy.tierSwitches,
        policy.prefixChangesPer100.toFixed(2),
        policy.executePasses,
      ]),
    ),
  ))
    io.stdout(line)
}
