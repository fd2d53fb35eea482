import { REPLAY_COUNT_CACHE_CHARS } from "../tokens/counted-text-cache.js"
import { resolve } from "node:path"
import { parseCommandArgs } from "./parse-command-args.js"
import { formatTierQuality } from "../lab/format-tier-quality.js"
import { rounded } from "../lab/lab-json.js"
import { readProbeFile } from "../lab/read-probe-file.js"
import { measureTierQuality, type TierQualityReport } from "../lab/tier-quality.js"
import { createTokenCounterPool } from "../tokens/tiktoken-counter.js"
import { EXIT, type CliIo, type ExitCode } from "./cli-io.js"
import { labCounter, loadLabConfig } from "./lab-setup.js"
import { MIN_WINDOW_TOKENS, parseNumberOption } from "./parse-number-option.js"

/** The window the tiers experiment cuts compartments at when none is given. */
export const DEFAULT_TIERS_WINDOW = 32_000

export const LAB_TIERS_HELP = `magic-context lab tiers --probes FILE [--window N] [--json] [--config FILE]

Experiment 1 (static tier quality). Cuts the transcripts the probes name into compartments (a default-policy replay
at --window, default ${DEFAULT_TIERS_WINDOW}), then measures every tier of every compartment per generation strategy:
canonical-record (each tier rendered from the record of the source, the default), cascaded (each tier made from
the text of the tier above) and oracle (told the probes: the smallest text carrying them). A probe is checked in a
compartment whose source contains its "exact" string; it survives in a tier that still contains it. Reports mean
tokens, survival, survival per 1,000 tokens, cross-tier contradictions and which tiers are dominated (a cheaper
tier of the same strategy keeps at least as many probes). The model historian runs only inside OpenCode (it needs
OpenCode's client), so it is not measured here.`

/** `magic-context lab tiers`. */
export async function commandLabTiers(io: CliIo): Promise<ExitCode> {
  const parsed = parseCommandArgs({
    args: io.args,
    options: {
      probes: { type: "string" },
      window: { type: "string" },
      json: { type: "boolean" },
      config: { type: "string" },
      help: { type: "boolean" },
    },
  })
  if (parsed.values.help) {
    io.stdout(LAB_TIERS_HELP)
    return EXIT.ok
  }
  if (!parsed.values.probes) {
    io.stderr(`lab tiers needs --probes FILE\n\n${LAB_TIERS_HELP}`)
    return EXIT.usage
  }
  const window = parseNumberOption(parsed.values.window, "--window", { min: MIN_WINDOW_TOKENS, integer: true })
  if (typeof window === "object") {
    io.stderr(window.error)
    return EXIT.usage
  }
  const config = loadLabConfig(io, parsed.values.config)
  const probes = readProbeFile(resolve(io.cwd, parsed.values.probes))
  if (!probes.ok) {
    io.stderr(probes.error)
    return EXIT.problem
  }
  const pool = createTokenCounterPool({ cacheChars: REPLAY_COUNT_CACHE_CHARS })
  try {
    const counter = labCounter(pool, config)
    const report = await measureTierQuality({ probes: probes.value, window: window ?? DEFAULT_TIERS_WINDOW, counter, config })
    if (parsed.values.json) io.stdout(JSON.stringify(tierQualityJson(report, counter.encoding), null, 2))
    else printTierQuality(io, report, counter.encoding)
    for (const problem of report.problems) io.stderr(problem)
    return report.problems.length === 0 ? EXIT.ok : EXIT.problem
  } finally {
    pool.dispose()
  }
}

/** The `lab tiers --json` object; numbers rounded so two runs print the same bytes. */
export function tierQualityJson(report: TierQualityReport, encoding: string): Record<string, unknown> {
  return {
    settings: { window: report.window, encoding },
    transcripts: report.transcripts,
    compartments: report.compartments,
    tiers: report.tiers.map((row) => ({
      ...row,
      meanTokens: rounded(row.meanTokens, 1),
      survival: rounded(row.survival, 4),
      survivalPer1kTokens: rounded(row.survivalPer1kTokens, 4),
    })),
    problems: report.problems,
  }
}

function printTierQuality(io: CliIo, report: TierQualityReport, encoding: string): void {
  io.stdout(
    `Experiment 1 (tier quality): ${report.compartments} compartments of ${report.transcripts} transcripts, cut at a ` +
      `${report.window}-token window; tokens counted with ${encoding}`,
  )
  io.stdout("")
  for (const line of formatTierQuality(report.tiers)) io.stdout(line)
}
