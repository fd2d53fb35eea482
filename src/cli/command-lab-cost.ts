import { REPLAY_COUNT_CACHE_CHARS } from "../tokens/counted-text-cache.js"
import { resolve } from "node:path"
import { parseCommandArgs } from "./parse-command-args.js"
import type { Config } from "../config/schema.js"
import { costReplay } from "../lab/cost-replay.js"
import { pluginRequestTokens } from "../lab/plugin-request-tokens.js"
import { UNREDUCED_WINDOW_TOKENS } from "../lab/evaluate-probes.js"
import { formatPriceListCosts, priceListCostJson } from "../lab/format-price-list-costs.js"
import {
  hostAloneMode,
  pluginCostsMore,
  priceListCostRows,
  priceListTotals,
  type PriceListCostRow,
  type PriceListRun,
} from "../lab/price-list-costs.js"
import { isPluginError } from "../plugin-error.js"
import { PRICE_LIST_NAMES, PRICE_LISTS, type PriceListName } from "../session/price-lists.js"
import type { Result } from "../result.js"
import { createTokenCounterPool } from "../tokens/tiktoken-counter.js"
import type { TokenCounter } from "../tokens/token-counter.js"
import { readTranscript } from "../transcript/read-transcript.js"
import { skippedInputLines } from "../transcript/skipped-records.js"
import { EXIT, type CliIo, type ExitCode } from "./cli-io.js"
import { labCounter, loadLabConfig } from "./lab-setup.js"
import { parseWindowList } from "./parse-number-option.js"
import { createProgress, type Progress } from "./progress.js"

/** The windows and price lists `lab cost` compares when none are given. */
export const DEFAULT_COST_WINDOWS = [200_000, 1_000_000] as const
export const DEFAULT_COST_LISTS: readonly PriceListName[] = ["anthropic-5m", "anthropic-1h", "openai"]

export const LAB_COST_HELP = `magic-context lab cost FILE[#N]... [--window N[,N...]] [--price-list LIST] [--json] [--config FILE]

The estimated prompt cost of each transcript with magic-context and without it, per window and price list. The host
alone is the transcript replayed unreduced without tags or reminders (append-only: each call reads the previous
prompt from the cache); where its largest prompt does not fit the window, the overflow is handled as the truncation
policy does. The plugin is the default policy with the engine deciding under the price list (its prices and cache
lifetime). Each call's prefix shared with the previous call's prompt is a cached read, the rest a cache write at the
list's write price (uncached where the list has no write premium). It reports per transcript and in total: both
costs in uncached-input-token units, the saving, the plugin's cache breaks and execute passes, and marks MORE where
the plugin costs more than the host alone.

  --window N,...    usable windows in tokens (default ${DEFAULT_COST_WINDOWS.join(",")})
  --price-list LIST comma-separated, from ${PRICE_LIST_NAMES.join(", ")} (default ${DEFAULT_COST_LISTS.join(",")})
  --json            print { settings, rows, totals } instead of the tables
  --config FILE     an extra magic-context.jsonc applied over the usual files (threshold, pins, tokenizer)`

/** `magic-context lab cost`. */
export async function commandLabCost(io: CliIo): Promise<ExitCode> {
  const parsed = parseCommandArgs({
    args: io.args,
    allowPositionals: true,
    options: {
      window: { type: "string" },
      "price-list": { type: "string" },
      json: { type: "boolean" },
      config: { type: "string" },
      help: { type: "boolean" },
    },
  })
  if (parsed.values.help) {
    io.stdout(LAB_COST_HELP)
    return EXIT.ok
  }
  const usage = (message: string): ExitCode => {
    io.stderr(`${message}\n\n${LAB_COST_HELP}`)
    return EXIT.usage
  }
  if (parsed.positionals.length === 0) return usage("lab cost needs at least one transcript file")
  const windows =
    parsed.values.window === undefined
      ? { ok: true as const, value: [...DEFAULT_COST_WINDOWS] }
      : parseWindowList(parsed.values.window, "--window")
  if (!windows.ok) return usage(windows.error)
  const lists = parsePriceLists(parsed.values["price-list"])
  if (!lists.ok) return usage(lists.error)

  const config = loadLabConfig(io, parsed.values.config)
  const pool = createTokenCounterPool({ cacheChars: REPLAY_COUNT_CACHE_CHARS })
  const runs: PriceListRun[] = []
  let failed = false
  try {
    const counter = labCounter(pool, config)
    const replaysPerFile = 1 + windows.value.length * lists.value.length
    const total = parsed.positionals.length * replaysPerFile
    const progress = createProgress(io, { title: "lab cost", total, quiet: parsed.values.json === true })
    for (const file of parsed.positionals) {
      try {
        runs.push(...(await fileRuns({ io, file, windows: windows.value, lists: lists.value, counter, config, progress })))
      } catch (error) {
        if (!isPluginError(error)) throw error
        io.stderr(error.message)
        failed = true
      }
    }
    progress.finish()
    const rows = priceListCostRows(runs)
    const totals = priceListTotals({ runs, windows: windows.value, lists: lists.value })
    if (parsed.values.json) {
      const settings = {
        windows: windows.value,
        priceLists: lists.value,
        encoding: counter.encoding,
        thresholdPercent: config.execute_threshold,
      }
      io.stdout(JSON.stringify({ settings, rows: rows.map(priceListCostJson), totals: totals.map(priceListCostJson) }, null, 2))
    } else printCosts(io, { rows, totals, encoding: counter.encoding, config })
    return failed ? EXIT.problem : EXIT.ok
  } finally {
    pool.dispose()
  }
}

/** One transcript: the host alone unreduced once, then per window and list the plugin (and the host alone if it overflows). */
async function fileRuns(options: {
  io: CliIo
  file: string
  windows: readonly number[]
  lists: readonly PriceListName[]
  counter: TokenCounter
  config: Config
  progress: Progress
}): Promise<PriceListRun[]> {
  const { io, file, counter, config, progress } = options
  const transcript = readTranscript(resolve(io.cwd, file))
  for (const line of skippedInputLines(file, transcript)) io.stderr(line)
  const replay = { transcript, counter, config }
  const requestTokens = pluginRequestTokens(counter)
  const unreduced = await costReplay({ ...replay, window: UNREDUCED_WINDOW_TOKENS, policy: "default", tagsVisible: false })
  progress.step(`${file} host alone`)
  const runs: PriceListRun[] = []
  for (const window of options.windows) {
    const hostAloneAs = hostAloneMode(unreduced.metrics.maxPromptTokens, window)
    for (const list of options.lists) {
      const plugin = await costReplay({ ...replay, window, policy: "default", priceList: list, tagsVisible: true, requestTokens })
      const hostAlone =
        hostAloneAs === "unreduced"
          ? unreduced
          : await costReplay({ ...replay, window, policy: "truncation", priceList: list, tagsVisible: false })
      runs.push({ fixture: file, window, list, hostAloneAs, hostAlone, plugin })
      progress.step(`${file} ${list} @ ${window}`)
    }
  }
  return runs
}

/** `--price-list`: the default lists when absent, else the names given, each once, in the order given. */
function parsePriceLists(raw: string | undefined): Result<PriceListName[]> {
  if (raw === undefined) return { ok: true, value: [...DEFAULT_COST_LISTS] }
  const names = raw.split(",").map((name) => name.trim()).filter((name) => name !== "")
  const unknown = names.filter((name) => !(PRICE_LIST_NAMES as readonly string[]).includes(name))
  if (unknown.length > 0) {
    const named = unknown.map((name) => `"${name}"`).join(", ")
    return { ok: false, error: `--price-list: unknown ${named}; expected names from ${PRICE_LIST_NAMES.join(", ")}` }
  }
  if (names.length === 0) return { ok: false, error: `--price-list: expected at least one of ${PRICE_LIST_NAMES.join(", ")}` }
  return { ok: true, value: [...new Set(names)] as PriceListName[] }
}

function printCosts(
  io: CliIo,
  options: { rows: PriceListCostRow[]; totals: PriceListCostRow[]; encoding: string; config: Config },
): void {
  const { rows, totals } = options
  io.stdout(
    `Estimated prompt cost with magic-context (the default policy) and without it (the host alone), in uncached-input-token ` +
      `units; tokens counted with ${options.encoding}; execute threshold ${options.config.execute_threshold}%`,
  )
  const lists = [...new Set(rows.map((row) => row.list))]
  for (const list of lists) io.stdout(`  ${list}: ${PRICE_LISTS[list].source}`)
  const requestTokens = Math.max(0, ...rows.map((row) => row.pluginRequestTokens))
  io.stdout(`The plugin's guidance and tool definitions add ${requestTokens} tokens to each of its requests (cached after the first).`)
  io.stdout("")
  for (const line of formatPriceListCosts(rows)) io.stdout(line)
  io.stdout("")
  for (const line of formatPriceListCosts(totals)) io.stdout(line)
  io.stdout("")
  const more = pluginCostsMore(rows)
  io.stdout(
    more.length === 0
      ? "The plugin costs no more than the host alone in any row."
      : `The plugin costs more than the host alone in ${more.length} of ${rows.length} rows (marked MORE).`,
  )
}
