import { existsSync } from "node:fs"
import { resolve } from "node:path"
import { parseCommandArgs } from "./parse-command-args.js"
import { readConfigFiles } from "../config/read-config-files.js"
import { isPluginError } from "../plugin-error.js"
import { gatherStatus } from "../status/gather-status.js"
import { storedSessionPricing, storedSessionReasoning } from "../status/session-reasoning.js"
import { formatStatus } from "../status/format-status.js"
import { openCodeCompaction, piCompaction, type HostCompaction } from "../status/status-data.js"
import { configuredDatabasePath } from "../store/database-path.js"
import { openDatabase } from "../store/open-database.js"
import { listSessions, type SessionSummary } from "../store/session-repository.js"
import { newestSessionId } from "../store/status-repository.js"
import { EXIT, type CliIo, type ExitCode } from "./cli-io.js"
import { readPiCompactionSetting } from "../pi/pi-settings.js"
import { inspectOpenCodeInstall } from "../install/opencode-install.js"

export const STATUS_HELP = `magic-context status [--session ID] [--directory DIR] [--db PATH] [--json] [--list]

Prints the status report of a stored session, as /ctx-status shows it in OpenCode: usage against the window with the
band and threshold, where the tokens go, queued drops, what the last execute pass changed, the historian, pins,
recent internal errors and OpenCode's compaction settings. By default the newest session of the project directory
(the current one, or --directory), else the newest of the store.

  --session ID     the session (see --list)
  --directory DIR  the project whose newest session is shown (default: the current directory)
  --db PATH        the store to read (default: the configured database.path, else the live store)
  --list           list the stored sessions instead: id, host, project, last activity, counts, title
  --json           the report's data (or the list) as JSON`

/** `magic-context status`. */
export async function commandStatus(io: CliIo): Promise<ExitCode> {
  const parsed = parseCommandArgs({
    args: io.args,
    options: {
      session: { type: "string" },
      directory: { type: "string" },
      db: { type: "string" },
      json: { type: "boolean" },
      list: { type: "boolean" },
      help: { type: "boolean" },
    },
  })
  if (parsed.values.help) {
    io.stdout(STATUS_HELP)
    return EXIT.ok
  }
  const directory = resolve(io.cwd, parsed.values.directory ?? ".")
  if (!existsSync(directory)) {
    io.stderr(`${directory}: no such project directory`)
    return EXIT.usage
  }
  const loaded = readConfigFiles({ directory, env: io.env })
  const file = parsed.values.db ? resolve(io.cwd, parsed.values.db) : configuredDatabasePath(loaded.config.database.path, io.env)
  if (!existsSync(file)) {
    io.stderr(`${file}: no magic-context store here yet (it is created when OpenCode or Pi first runs with magic-context)`)
    return EXIT.problem
  }
  try {
    const db = await openDatabase(file)
    try {
      if (parsed.values.list) {
        const sessions = listSessions(db)
        if (parsed.values.json) io.stdout(JSON.stringify(sessions, null, 2))
        else for (const session of sessions) io.stdout(sessionLine(session))
        return EXIT.ok
      }
      const sessionId = parsed.values.session ?? newestSessionId(db, directory) ?? newestSessionId(db)
      if (!sessionId) {
        io.stderr(`${file}: the store holds no session yet`)
        return EXIT.problem
      }
      const session = listSessions(db, 10_000).find((stored) => stored.id === sessionId)
      if (!session) {
        io.stderr(`${file}: no session ${sessionId} (magic-context status --list shows the stored ones)`)
        return EXIT.problem
      }
      const status = gatherStatus({
        db,
        sessionId,
        strategy: loaded.config.historian.strategy,
        thresholdPercent: loaded.config.execute_threshold,
        configuredProtectedTokens: loaded.config.protected_tokens,
        hostCompaction: hostCompactionOf(session, directory, io),
        reasoningRule: storedSessionReasoning({ db, sessionId, config: loaded.config }),
        pricing: storedSessionPricing({ db, sessionId, config: loaded.config }),
        sessionlessErrors: { directory },
      })
      io.stdout(parsed.values.json ? JSON.stringify(status, null, 2) : formatStatus(status, Date.now()))
      return EXIT.ok
    } finally {
      db.close()
    }
  } catch (error) {
    if (!isPluginError(error)) throw error
    io.stderr(error.message)
    return EXIT.problem
  }
}

/** One line of `--list`: id, host, project, last activity (UTC), counts and title. */
function sessionLine(session: SessionSummary): string {
  const title = session.title ? `  ${session.title}` : ""
  const activity = new Date(session.updatedAt).toISOString().slice(0, 16).replace("T", " ")
  const project = session.directory ?? "(no project)"
  return `${session.id}  ${session.source}  ${project}  ${activity}  ${session.messages} messages, ${session.tags} tags, ${session.passes} passes${title}`
}

/** The compaction settings of the host a session ran in, read where that host reads them (none for a replay). */
function hostCompactionOf(session: SessionSummary, directory: string, io: CliIo): HostCompaction | null {
  if (session.source === "replay") return null
  if (session.source === "pi") {
    // How often Pi compacted is known only inside Pi's process (`/ctx-status` there shows it).
    return piCompaction({ ...readPiCompactionSetting({ cwd: session.directory ?? io.cwd, env: io.env }), compacted: 0 })
  }
  const install = inspectOpenCodeInstall({ directory: session.directory ?? directory, env: io.env })
  return openCodeCompaction({
    auto: install.compaction.auto,
    prune: install.compaction.prune,
    source: `${install.compaction.autoSource}; ${install.compaction.pruneSource}`,
  })
}
