import { existsSync, writeFileSync } from "node:fs"
import { dirname, resolve } from "node:path"
import type { ReplayTurn } from "../pass/replay-transcript.js"
import { configuredDatabasePath } from "../store/database-path.js"
import { readTranscript } from "../transcript/read-transcript.js"
import { htmlReport, type ReportCall } from "../report/html-report.js"
import { EXIT, type CliIo, type ExitCode } from "./cli-io.js"
import { REPLAY_OPTIONS, withReplayRun } from "./command-replay.js"
import { parseCommandArgs } from "./parse-command-args.js"
import { parseNumberOption } from "./parse-number-option.js"
import { createProgress } from "./progress.js"
import { formatShownPrompt } from "./show-format.js"
import { showPrompt } from "../report/show-prompt.js"
import { readRawRecords } from "./show-raw-records.js"
import { readStoredSession } from "./show-stored-session.js"

export const SHOW_HELP = `magic-context show FILE[#N] [--turn N] [--json] [--html OUT.html] [replay's engine options]
magic-context show --session ID [--directory DIR] [--db PATH] [--turn N] [--json] [--html OUT.html]

Replays a transcript (or a stored session) with the engine exactly as \`replay\` does and prints the prompt it sends
at one model call: each history episode with its tier (FULL, DENSE, COMPACT, ANCHOR) and its tag range, the pinned
ledger, the working set, then the conversation with its §N§ tags and drop markers, each drop followed by what the
dropped item said (the raw record the store keeps).

  FILE             a transcript, as for replay (an \`opencode export\`, pi, Claude Code, OpenHands or SWE-agent)
  --session ID     a session of the magic-context store instead (magic-context status --list shows them); it is
                   replayed from its stored messages into memory, the store is only read; the store does not keep
                   the system prompt and tool definitions, so give their size with --fixed-tokens
  --directory DIR  the project whose config applies (default: the current directory)
  --db PATH        the store that holds --session (default: the configured one)
  --turn N         the model call at transcript turn N, as replay's table numbers them (default: the last call)
  --json           the prompt as one JSON object (episodes, ledger, messages, raw records in full)
  --html OUT.html  write a report of the whole replay instead: one static HTML file (no server, no network) with
                   the prompt tokens of every call against the window and thresholds, each episode's tier over the
                   calls, and the prompt at every execute pass (and at --turn), each episode expandable to its raw
                   record; open it in any browser
  --window, --threshold, --fixed-tokens, --policy, --smart-drops, --calibrate, --price-list, --config: as for replay`

/** `magic-context show`. */
export async function commandShow(io: CliIo): Promise<ExitCode> {
  const parsed = parseCommandArgs({
    args: io.args,
    allowPositionals: true,
    options: {
      ...REPLAY_OPTIONS,
      session: { type: "string" },
      directory: { type: "string" },
      turn: { type: "string" },
      json: { type: "boolean" },
      // Before --html: a slip such as --hepl is as near to either, and the nearest named first is suggested.
      help: { type: "boolean" },
      html: { type: "string" },
    },
  })
  if (parsed.values.help) {
    io.stdout(SHOW_HELP)
    return EXIT.ok
  }
  const [spec, ...extra] = parsed.positionals
  const session = parsed.values.session
  if (extra.length > 0 || (spec === undefined) === (session === undefined)) {
    io.stderr(`show takes one transcript file or --session ID\n\n${SHOW_HELP}`)
    return EXIT.usage
  }
  if (spec !== undefined && parsed.values.db !== undefined) {
    io.stderr("--db names the store of --session; show replays a transcript file into memory")
    return EXIT.usage
  }
  const turn = parseNumberOption(parsed.values.turn, "--turn", { min: 0, integer: true })
  if (typeof turn === "object") {
    io.stderr(turn.error)
    return EXIT.usage
  }
  const directory = resolve(io.cwd, parsed.values.directory ?? ".")
  if (!existsSync(directory)) {
    io.stderr(`${directory}: no such project directory`)
    return EXIT.usage
  }
  const htmlFile = parsed.values.html === undefined ? null : resolve(io.cwd, parsed.values.html)
  if (htmlFile !== null && !existsSync(dirname(htmlFile))) {
    io.stderr(`--html ${parsed.values.html}: no such directory ${dirname(htmlFile)}`)
    return EXIT.usage
  }
  const storeFile = parsed.values.db === undefined ? null : resolve(io.cwd, parsed.values.db)
  const load = spec !== undefined
    ? () => readTranscript(resolve(io.cwd, spec))
    : (config: { database: { path: string | null } }) =>
        readStoredSession(storeFile ?? configuredDatabasePath(config.database.path, io.env), session as string)
  // The replay runs in memory whatever --db says (--db is the store --session is read from).
  const values = { ...parsed.values, db: undefined }
  return withReplayRun({ ...io, cwd: directory }, values, load, async (run) => {
    const source = spec ?? `session ${session}`
    const calls: ReportCall[] = []
    const executes: ReplayTurn[] = []
    let selected: ReplayTurn | null = null
    const progress = createProgress(io, {
      title: "show",
      total: run.transcript.turns.filter((entry) => entry.role === "assistant").length,
      quiet: parsed.values.json === true,
    })
    const { sessionId } = run.replay((call) => {
      progress.step(`turn ${call.turn}`)
      calls.push({ turn: call.turn, pass: call.pass, band: call.band, tokens: call.tokens.total, usageBefore: call.usageBefore, tiers: call.history?.tiers ?? {} })
      if (htmlFile !== null && call.pass === "execute") executes.push(call)
      if (turn === undefined || call.turn === turn) selected = call
    })
    progress.finish()
    const turns = calls.map((call) => call.turn)
    if (calls.length === 0) {
      io.stderr(`${source}: no model call to show (no assistant turn follows a message)`)
      return EXIT.problem
    }
    const chosen = selected as ReplayTurn | null
    if (chosen === null) {
      const nearest = [...turns].sort((a, b) => Math.abs(a - (turn as number)) - Math.abs(b - (turn as number))).slice(0, 2).sort((a, b) => a - b)
      io.stderr(
        `--turn ${turn}: no model call at turn ${turn} of ${source}; its ${turns.length} model calls are at turns ` +
          `${turns[0]}–${turns.at(-1)} (nearest: ${nearest.join(", ")})`,
      )
      return EXIT.usage
    }
    const raw = readRawRecords(run.db, sessionId)
    const shown = showPrompt(chosen, raw)
    if (htmlFile !== null) {
      const passes = [...executes.filter((call) => call.turn !== chosen.turn), chosen].sort((a, b) => a.turn - b.turn)
      const html = await htmlReport({
        source,
        format: run.transcript.format,
        window: run.window,
        calls,
        prompts: passes.map((call) => showPrompt(call, raw)),
        selected: chosen.turn,
      })
      writeFileSync(htmlFile, html)
      io.stdout(`${htmlFile}: the report of ${calls.length} model calls, ${executes.length} execute passes (${Buffer.byteLength(html)} bytes)`)
      return EXIT.ok
    }
    if (parsed.values.json) io.stdout(JSON.stringify({ source, format: run.transcript.format, calls: turns, ...shown }))
    else for (const line of formatShownPrompt(shown, { source, calls: turns })) io.stdout(line)
    return EXIT.ok
  })
}
