import { existsSync, realpathSync } from "node:fs"
import { resolve } from "node:path"
import { parseArgs } from "node:util"
import { readConfigFiles } from "../config/read-config-files.js"
import { replayTranscript, type ReplayTurn } from "../pass/replay-transcript.js"
import { systemClock } from "../pass/system-clock.js"
import { isPluginError } from "../plugin-error.js"
import { defaultDatabasePath } from "../store/database-path.js"
import { MEMORY_DATABASE, openDatabase } from "../store/open-database.js"
import { encodingForModel } from "../tokens/encoding-for-model.js"
import { createTokenCounterPool } from "../tokens/tiktoken-counter.js"
import { readTranscript } from "../transcript/read-transcript.js"
import { EXIT, type CliIo, type ExitCode } from "./cli-io.js"
import { formatTable } from "./format-table.js"

export const REPLAY_HELP = `magic-context replay FILE[#N] [--json] [--db PATH] [--config FILE]

Runs the engine over a recorded transcript turn by turn, as if it were the live session, and prints the
composition of the prompt before every model call: tokens by kind and the tags assigned.

  FILE       an \`opencode export\` JSON, pi JSONL, Claude Code JSONL, OpenHands JSONL or SWE-agent .traj
             (detected from the content); FILE#N picks the N-th (0-based) trajectory of a multi-trajectory file
  --json     one JSON object per turn instead of the table
  --db PATH  keep the replayed session in this SQLite file (default: a fresh in-memory database;
             the live store is never used)
  --config   an extra magic-context.jsonc applied over the usual files`

/** `magic-context replay`. */
export async function commandReplay(io: CliIo): Promise<ExitCode> {
  const parsed = parseArgs({
    args: io.args,
    allowPositionals: true,
    options: { json: { type: "boolean" }, db: { type: "string" }, config: { type: "string" }, help: { type: "boolean" } },
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
  const dbFile = parsed.values.db ? resolve(io.cwd, parsed.values.db) : MEMORY_DATABASE
  if (dbFile !== MEMORY_DATABASE && sameFile(dbFile, defaultDatabasePath(io.env))) {
    io.stderr(`replay never writes to the live store (${dbFile}); give another --db path or none`)
    return EXIT.usage
  }
  const loaded = readConfigFiles({ directory: io.cwd, explicitFile: parsed.values.config, env: io.env })
  for (const diagnostic of loaded.diagnostics) io.stderr(diagnostic.message)

  const pool = createTokenCounterPool()
  try {
    const transcript = readTranscript(resolve(io.cwd, spec))
    const counter = pool.counterFor(
      encodingForModel({
        providerID: transcript.model?.providerID,
        modelID: transcript.model?.modelID,
        settings: loaded.config.tokenizer,
      }),
    )
    const db = await openDatabase(dbFile)
    try {
      const rows: ReplayTurn[] = []
      const summary = replayTranscript({
        transcript,
        db,
        counter,
        clock: systemClock,
        onTurn: (turn) => (parsed.values.json ? io.stdout(JSON.stringify(turnJson(turn))) : rows.push(turn)),
      })
      if (!parsed.values.json) printTable(io, rows, { file: spec, format: transcript.format, encoding: counter.encoding, ...summary })
    } finally {
      db.close()
    }
    return EXIT.ok
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

/** The per-turn JSON record (stable field order). */
export function turnJson(turn: ReplayTurn): Record<string, unknown> {
  return {
    turn: turn.turn,
    pass: turn.pass,
    messages: turn.messages,
    tokens: turn.tokens,
    newTags: turn.newTags,
    tagCount: turn.tagCount,
  }
}

function printTable(
  io: CliIo,
  rows: ReplayTurn[],
  meta: { file: string; format: string; encoding: string; passes: number; sessionId: string },
): void {
  io.stdout(`${meta.file}: ${meta.format} transcript, ${meta.passes} model calls replayed, tokens counted with ${meta.encoding}`)
  io.stdout("")
  const table = formatTable(
    ["turn", "msgs", "total", "fixed", "user", "assistant", "reasoning", "calls", "outputs", "files", "tags", "new tags"],
    rows.map((row) => [
      row.turn,
      row.messages,
      row.tokens.total,
      row.tokens.fixed,
      row.tokens.user,
      row.tokens.assistant,
      row.tokens.reasoning,
      row.tokens.toolCalls,
      row.tokens.toolOutputs,
      row.tokens.files,
      row.tokens.tags,
      tagRange(row.newTags),
    ]),
  )
  for (const line of table) io.stdout(line)
}

function tagRange(tags: number[]): string {
  if (tags.length === 0) return "-"
  const first = tags[0] as number
  const last = tags[tags.length - 1] as number
  return first === last ? `§${first}§` : `§${first}§-§${last}§`
}
