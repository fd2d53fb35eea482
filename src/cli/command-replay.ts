import { REPLAY_COUNT_CACHE_CHARS } from "../tokens/counted-text-cache.js"
import { existsSync, realpathSync } from "node:fs"
import { resolve } from "node:path"
import { parseCommandArgs } from "./parse-command-args.js"
import { readConfigFiles } from "../config/read-config-files.js"
import { replayTranscript, type ReplayTurn } from "../pass/replay-transcript.js"
import { systemClock } from "../pass/system-clock.js"
import { isPluginError } from "../plugin-error.js"
import { fixedWindow, REPLAY_MODEL, landingClamp, landingClampMessage, protectedClamp, resolveWindow, type WindowSettings } from "../pressure/model-window.js"
import { PRICE_LIST_NAMES, type PriceListName } from "../session/price-lists.js"
import { protectedClampMessage } from "../reduce/protected-window.js"
import { defaultDatabasePath } from "../store/database-path.js"
import { MEMORY_DATABASE, openDatabase } from "../store/open-database.js"
import { encodingForModel } from "../tokens/encoding-for-model.js"
import { createTokenCounterPool } from "../tokens/tiktoken-counter.js"
import { readTranscript } from "../transcript/read-transcript.js"
import { skippedInputLines } from "../transcript/skipped-records.js"
import { createProgress } from "./progress.js"
import { recordedSessionWindow } from "./recorded-session-window.js"
import { printReplayTable, turnJson } from "./replay-output.js"
import { replaySummary, replayTotals } from "./replay-summary.js"
import { createReplayPricer, pricedTurnJson, replayPriceLines } from "./replay-cost.js"
import { unreducedReplay } from "./unreduced-replay.js"
import { createPromptCostMeter } from "../lab/prompt-cost.js"
import { EXIT, type CliIo, type ExitCode } from "./cli-io.js"
import { MIN_WINDOW_TOKENS, numberOrUndefined, parseNumberOption } from "./parse-number-option.js"
import type { SelectionPolicy } from "../render/select-tiers.js"
import { compilePinPatterns } from "../historian/pin-patterns.js"
import type { Config } from "../config/schema.js"
import type { TokenCounter } from "../tokens/token-counter.js"
import type { Transcript } from "../transcript/turn-model.js"
import type { Database } from "../store/driver.js"

const POLICIES: readonly SelectionPolicy[] = ["default", "age-only", "flat", "truncation"]

export const REPLAY_HELP = `magic-context replay FILE[#N] [--window TOKENS] [--threshold PCT] [--smart-drops] [--json]
                     [--fixed-tokens N] [--calibrate] [--price-list LIST] [--db PATH] [--config FILE]

Runs the engine over a recorded transcript turn by turn, as if it were the live session, and prints what
happens before every model call: execute or replay pass, pressure band, where the prompt's tokens go, whether
the previous prompt stayed a byte prefix (the provider's cache), the drops that landed and the reminders.
ctx_reduce calls the recorded agent made (a session recorded with magic-context) are queued as they were live.

  FILE           an \`opencode export\` JSON, pi JSONL, Claude Code JSONL, OpenHands JSONL or SWE-agent .traj
                 (detected from the content); FILE#N picks the N-th (0-based) trajectory of a multi-trajectory file
  --window N     the usable window in tokens (default: for an \`opencode export\` of a session the live store
                 holds, the window its newest pass ran with; else the model's window from the config's "models",
                 else 128000 minus the output reserve)
  --threshold P  the execute threshold in percent (default: the config's execute_threshold, 65)
  --smart-drops  turn on smart_drops for this run
  --policy NAME  how compartments get their tier: default (retention floors + budget + hysteresis), age-only,
                 flat or truncation (the comparison baselines)
  --fixed-tokens N  tokens of the system prompt and tool definitions, for a transcript that does not record
                 them (an export, pi, Claude Code); default: the transcript's system prompt, if any, else for an
                 \`opencode export\` what the live store recorded of its session; the header says which
  --calibrate    calibrate against the usage reports the transcript records (pi): right for a session recorded
                 with magic-context, wrong for any other (its reports are of the unreduced prompts)
  --price-list LIST  the price list the engine decides and prices under (${PRICE_LIST_NAMES.join(", ")}); default:
                 the list the config gives the transcript's model (models.<pattern>.price_list, "*" matches a
                 transcript that records none), else with --window or no recorded model OpenAI's (the Lab's), else
                 the model's provider's
  --json         one JSON object per turn instead of the table
  --db PATH      keep the replayed session in this SQLite file (default: a fresh in-memory database;
                 the live store is never written)
  --config FILE  an extra magic-context.jsonc applied over the usual files`

/** The engine options of every command that replays a transcript (replay, show), for `parseArgs`. */
export const REPLAY_OPTIONS = {
  db: { type: "string" },
  config: { type: "string" },
  window: { type: "string" },
  threshold: { type: "string" },
  "fixed-tokens": { type: "string" },
  calibrate: { type: "boolean" },
  "smart-drops": { type: "boolean" },
  policy: { type: "string" },
  "price-list": { type: "string" },
} as const

/** What `REPLAY_OPTIONS` parse to. */
export type ReplayOptionValues = {
  db?: string | undefined
  config?: string | undefined
  window?: string | undefined
  threshold?: string | undefined
  "fixed-tokens"?: string | undefined
  calibrate?: boolean | undefined
  "smart-drops"?: boolean | undefined
  policy?: string | undefined
  "price-list"?: string | undefined
}

/** A transcript ready to replay with the options given: the settings the engine runs with, and `replay` to run it. */
export type ReplayRun = {
  transcript: Transcript
  counter: TokenCounter
  window: WindowSettings
  config: Config
  /**
   * Tokens of the system prompt and tool definitions, when not the transcript's own system prompt: `--fixed-tokens`, or
   * what the live session recorded (`recordedSessionWindow`).
   */
  fixedTokens: number | undefined
  /** Where the usable window and the fixed prompt came from, as the replay's header says. */
  sources: { window: string; fixed: string }
  db: Database
  /** Replays the whole transcript into `db` (replayTranscript), calling `onTurn` for each model call. */
  replay: (onTurn: (turn: ReplayTurn) => void) => { passes: number; sessionId: string }
}

/** `magic-context replay`. */
export async function commandReplay(io: CliIo): Promise<ExitCode> {
  const parsed = parseCommandArgs({
    args: io.args,
    allowPositionals: true,
    options: { ...REPLAY_OPTIONS, json: { type: "boolean" }, help: { type: "boolean" } },
  })
  if (parsed.values.help) {
    io.stdout(REPLAY_HELP)
    return EXIT.ok
  }
  const [spec, ...extra] = parsed.positionals
  if (!spec || extra.length > 0) {
    io.stderr(`replay takes exactly one transcript file\n\n${REPLAY_HELP}`)
    return EXIT.usage
  }
  return withReplayRun(io, parsed.values, () => readTranscript(resolve(io.cwd, spec)), async (run) => {
    const { transcript, counter, window } = run
    const rows: ReplayTurn[] = []
    // A model call follows each assistant record (roughly: merged records make it an upper bound).
    const progress = createProgress(io, {
      title: "replay",
      total: transcript.turns.filter((turn) => turn.role === "assistant").length,
      quiet: parsed.values.json === true,
    })
    // The same session unreduced (the host alone), first: each call of the replay is priced against its own.
    const unreduced = await unreducedReplay({
      transcript,
      counter,
      config: run.config,
      ...(typeof run.fixedTokens === "number" ? { fixedTokens: run.fixedTokens } : {}),
    })
    const pricer = createReplayPricer({ unreduced, prices: { ...window.priceList, prices: window.prices }, usableTokens: window.usableTokens })
    const meter = createPromptCostMeter(counter)
    const summary = run.replay((turn) => {
      progress.step(`turn ${turn.turn}`)
      const cost = meter.measure(turn)
      const priced = pricer.price({ row: turn, cost })
      if (parsed.values.json) io.stdout(JSON.stringify({ ...turnJson(turn), ...pricedTurnJson(window.priceList.list, priced) }))
      else rows.push(turn)
    })
    progress.finish()
    if (!parsed.values.json) {
      printReplayTable(io, rows, { file: spec, format: transcript.format, encoding: counter.encoding, window, sources: run.sources, ...summary })
      const reduced = replayTotals(rows)
      io.stdout("")
      const lines = replaySummary({ rows, window, reduced, unreduced: replayTotals(unreduced.map((turn) => turn.row)) })
      // The price list's lines go after the comparison with the unreduced session, before where to look next.
      const next = lines.length - 1
      for (const line of [...lines.slice(0, next), ...replayPriceLines(pricer.finish()), ...lines.slice(next)]) io.stdout(line)
    }
    return EXIT.ok
  })
}

/**
 * The part every replaying command shares: checks the engine options (a bad one is a usage error, exit 2), loads the
 * config, reads the transcript (`load`, given the config), resolves the window, opens the replay's store (`--db`, else in memory) and
 * hands them to `use`. A PluginError (an unreadable transcript, a store that cannot open) prints its message and exits 1.
 */
export async function withReplayRun(
  io: CliIo,
  values: ReplayOptionValues,
  load: (config: Config) => Transcript | Promise<Transcript>,
  use: (run: ReplayRun) => Promise<ExitCode>,
): Promise<ExitCode> {
  const windowTokens = parseNumberOption(values.window, "--window", { min: MIN_WINDOW_TOKENS, integer: true })
  const threshold = parseNumberOption(values.threshold, "--threshold", { min: 20, max: 92, integer: false })
  const fixedTokens = parseNumberOption(values["fixed-tokens"], "--fixed-tokens", { min: 0, integer: true })
  for (const problem of [windowTokens, threshold, fixedTokens].filter((value): value is { error: string } => typeof value === "object")) {
    io.stderr(problem.error)
    return EXIT.usage
  }
  const policy = (values.policy ?? "default") as SelectionPolicy
  if (!POLICIES.includes(policy)) {
    io.stderr(`--policy takes one of ${POLICIES.join(", ")}, got "${values.policy}"`)
    return EXIT.usage
  }
  const listName = values["price-list"]
  if (listName !== undefined && !(PRICE_LIST_NAMES as readonly string[]).includes(listName)) {
    io.stderr(`--price-list takes one of ${PRICE_LIST_NAMES.join(", ")}, got "${listName}"`)
    return EXIT.usage
  }
  const named = listName === undefined ? {} : { priceList: listName as PriceListName }
  const dbFile = values.db ? resolve(io.cwd, values.db) : MEMORY_DATABASE
  if (dbFile !== MEMORY_DATABASE && sameFile(dbFile, defaultDatabasePath(io.env))) {
    io.stderr(`replay never writes to the live store (${dbFile}); give another --db path or none`)
    return EXIT.usage
  }
  const loaded = readConfigFiles({ directory: io.cwd, explicitFile: values.config, env: io.env })
  for (const diagnostic of loaded.diagnostics) io.stderr(diagnostic.message)

  const pool = createTokenCounterPool({ cacheChars: REPLAY_COUNT_CACHE_CHARS })
  try {
    const transcript = await load(loaded.config)
    for (const line of skippedInputLines(`${transcript.format} transcript ${transcript.id}`, transcript)) io.stderr(line)
    const model = transcript.model ?? REPLAY_MODEL
    const counter = pool.counterFor(
      encodingForModel({ providerID: model.providerID, modelID: model.modelID, settings: loaded.config.tokenizer }),
    )
    const flagged = typeof windowTokens === "number" && typeof fixedTokens === "number"
    const recorded = flagged ? null : await recordedSessionWindow({ transcript, config: loaded.config, env: io.env })
    const live = recorded ? `as the live session ran, ${recorded.file}` : ""
    const recordedUsable = recorded?.usableTokens ?? null
    // The live window is the host's (OpenCode's limits): given as the host's, a config override of the model still wins.
    const hostLimits = typeof windowTokens !== "number" && recordedUsable !== null ? { context: recordedUsable, output: 0 } : null
    const window: WindowSettings =
      typeof windowTokens === "number"
        ? fixedWindow({ usableTokens: windowTokens, thresholdPercent: numberOrUndefined(threshold), config: loaded.config, model, ...named })
        : {
            // A transcript that records no model is priced as the Lab prices replays, under OpenAI's list.
            ...resolveWindow({
              providerID: model.providerID,
              modelID: model.modelID,
              hostLimits,
              config: loaded.config,
              ...(transcript.model ? {} : { family: "openai" as const }),
              ...named,
            }),
            ...(typeof threshold === "number" ? { thresholdPercent: threshold } : {}),
          }
    const fixed =
      typeof fixedTokens === "number" ? fixedTokens : transcript.system === null ? (recorded?.fixedTokens ?? undefined) : undefined
    const sources = {
      window: typeof windowTokens === "number" ? "--window" : window.source === "host" ? live : window.source,
      fixed:
        typeof fixedTokens === "number"
          ? "--fixed-tokens"
          : transcript.system !== null
            ? "the transcript's system prompt"
            : fixed !== undefined
              ? live
              : "none recorded: --fixed-tokens sets it",
    }
    const clamp = protectedClamp(window)
    if (clamp) io.stderr(`${loaded.sources["protected_tokens"] ?? "config"}: ${protectedClampMessage(clamp)}`)
    const landing = landingClamp(window, loaded.config)
    if (landing) io.stderr(`${loaded.sources["history_landing"] ?? "config"}: ${landingClampMessage(landing)}`)
    const db = await openDatabase(dbFile)
    try {
      return await use({
        transcript,
        counter,
        window,
        config: loaded.config,
        fixedTokens: fixed,
        sources,
        db,
        replay: (onTurn) =>
          replayTranscript({
            transcript,
            db,
            counter,
            clock: systemClock,
            window,
            smartDrops: values["smart-drops"] === true || loaded.config.smart_drops,
            policy,
            pinPatterns: compilePinPatterns(loaded.config.pins).matchers,
            ...(fixed === undefined ? {} : { fixedTokens: fixed }),
            calibrate: values.calibrate === true,
            historian: loaded.config.historian.strategy !== "off",
            onTurn,
          }),
      })
    } finally {
      db.close()
    }
  } catch (error) {
    if (!isPluginError(error)) throw error
    io.stderr(error.message)
    return EXIT.problem
  } finally {
    pool.dispose()
  }
}

/** True when two paths name the same file, following symbolic links where the files exist. */
function sameFile(first: string, second: string): boolean {
  const real = (path: string): string => (existsSync(path) ? realpathSync(path) : path)
  return real(first) === real(second)
}
