import { spawn, spawnSync } from "node:child_process"
import { createHash } from "node:crypto"
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { createInterface } from "node:readline"
import { fileURLToPath } from "node:url"
import BetterSqlite3 from "better-sqlite3"
import { runCli } from "../../src/cli/main.js"

/**
 * The kill -9 probe: `node dist/cli/bin.js replay TRANSCRIPT --db FILE` is SIGKILLed at seeded random
 * points; after each kill the store must pass `PRAGMA integrity_check`, its raw rows (sessions' counters, messages,
 * parts, tags) must be exactly a clean run's raw rows after some pass (nothing changed, nothing extra, no half
 * pass), and a rerun of the replay must complete and end with exactly the clean run's raw rows.
 */

const REPO_ROOT = fileURLToPath(new URL("../../", import.meta.url))
const BIN = join(REPO_ROOT, "dist", "cli", "bin.js")

/** Raw rows: what ingest writes and nothing derived (no clock times, no tag status, no pass numbers). */
const RAW_QUERIES = [
  "SELECT id, source, next_tag, next_seq FROM sessions ORDER BY id",
  "SELECT session_id, id, seq, role, created_at, info_json FROM messages ORDER BY session_id, seq",
  `SELECT session_id, message_id, id, position, type, kind, tool, status, final, content_json, content_hash, tokens,
          call_tokens FROM parts ORDER BY session_id, id`,
  "SELECT session_id, tag, kind, message_id, part_id, tool FROM tags ORDER BY session_id, tag",
]

export type KillOutcome = {
  kill: number
  /** Where the kill landed: "before the first pass", "after N passes" or "after it finished". */
  landed: string
  failures: string[]
  /** Hidden temporary files of a store creation the kill interrupted (harmless; reported, not a failure). */
  leftovers: number
}

export type KillReport = { passes: number; outcomes: KillOutcome[] }

/** Runs the probe: a clean run, then `kills` killed runs, each checked and rerun. */
export async function killReplayProbe(options: { transcript: string; kills: number; seed: number }): Promise<KillReport> {
  if (!existsSync(BIN)) throw new Error(`${BIN} is missing: run npm run build first`)
  const root = mkdtempSync(join(tmpdir(), "mc-kill-replay-"))
  try {
    const env = isolatedEnv(root)
    const boundaries = await passBoundaries(options.transcript, join(root, "boundaries"), env)
    const finalDigest = boundaries.at(-1) ?? ""
    const clean = await timedCleanRun(options.transcript, join(root, "clean"), env)
    if (clean.digest !== finalDigest) throw new Error("the spawned clean run stored other raw rows than the in-process one")
    const random = mulberry32(options.seed)
    const outcomes: KillOutcome[] = []
    for (let kill = 0; kill < options.kills; kill += 1) {
      const folder = join(root, `kill-${kill}`)
      mkdirSync(folder)
      const file = join(folder, "store.db")
      const when = killPoint(random, clean)
      const killed = await runAndKill(replayArgs(options.transcript, file), env, folder, when)
      const failures: string[] = []
      const landed = killed.exited ? "after it finished" : describeLanding(file, boundaries, failures)
      const leftovers = readdirSync(folder).filter((name) => name.includes(".creating-")).length
      const rerun = spawnSync(process.execPath, replayArgs(options.transcript, file), { cwd: folder, env, encoding: "utf8" })
      if (rerun.status !== 0) failures.push(`the rerun exited ${rerun.status}: ${rerun.stderr.slice(0, 2_000)}`)
      else {
        failures.push(...integrity(file, "after the rerun"))
        if (rawDigest(file) !== finalDigest) failures.push("after the rerun the raw rows differ from the clean run's")
      }
      outcomes.push({ kill, landed, failures, leftovers })
    }
    return { passes: boundaries.length - 2, outcomes }
  } finally {
    rmSync(root, { recursive: true, force: true })
  }
}

/** Checks a killed store (when there is one) and says after how many passes of the clean run its raw rows stand. */
function describeLanding(file: string, boundaries: string[], failures: string[]): string {
  if (!existsSync(file)) return "before the store existed"
  failures.push(...integrity(file, "after the kill"))
  if (failures.length > 0) return "unknown (integrity)"
  const state = boundaries.indexOf(rawDigest(file))
  if (state === -1) {
    failures.push("after the kill the raw rows are not the clean run's after any pass (changed, extra or half a pass)")
    return "between passes"
  }
  return state < 2 ? "before the first pass" : `after ${state - 1} passes`
}

function integrity(file: string, when: string): string[] {
  const db = new BetterSqlite3(file, { readonly: true })
  try {
    const result = db.pragma("integrity_check", { simple: true })
    return result === "ok" ? [] : [`integrity_check ${when}: ${String(result)}`]
  } catch (error) {
    return [`integrity_check ${when} failed: ${error instanceof Error ? error.message : String(error)}`]
  } finally {
    db.close()
  }
}

/** The raw rows of the store at `file`, one JSON line each, per query; read on a read-only connection. */
function rawRows(file: string): string[][] {
  const db = new BetterSqlite3(file, { readonly: true })
  try {
    return RAW_QUERIES.map((sql) => db.prepare(sql).all().map((row) => JSON.stringify(row)))
  } finally {
    db.close()
  }
}

function digestOf(rows: string[][]): string {
  const hash = createHash("sha256")
  for (const lines of rows) hash.update(`${lines.join("\n")}\n--\n`)
  return hash.digest("hex")
}

/** A digest of the raw rows of the store at `file`. */
export function rawDigest(file: string): string {
  return digestOf(rawRows(file))
}

/**
 * Every state a replay's raw rows pass through, as digests: an empty store, the session row with its counters at 1
 * (invariant 3: numbering starts at 1), then the rows after each pass of a clean replay, read through the CLI's own
 * code in this process (the `--json` line of a pass is printed after its transactions committed).
 */
async function passBoundaries(transcript: string, folder: string, env: Record<string, string>): Promise<string[]> {
  mkdirSync(folder)
  const file = join(folder, "store.db")
  const afterPasses: string[] = []
  const code = await runCli({
    args: replayArgs(transcript, file).slice(1),
    env,
    cwd: folder,
    stdout: () => {
      afterPasses.push(rawDigest(file))
    },
    stderr: () => undefined,
  })
  if (code !== 0) throw new Error(`the in-process clean replay exited ${code}`)
  const [sessions = []] = rawRows(file)
  const fresh = sessions.map((line) => JSON.stringify({ ...(JSON.parse(line) as object), next_tag: 1, next_seq: 1 }))
  const nothing = RAW_QUERIES.map((): string[] => [])
  return [digestOf(nothing), digestOf([fresh, ...nothing.slice(1)]), ...afterPasses]
}

type CleanRun = { digest: string; firstLineMs: number; lineMs: number; lines: number }

/** A spawned clean run, timed: when its first pass line came and how far apart the others were. */
async function timedCleanRun(transcript: string, folder: string, env: Record<string, string>): Promise<CleanRun> {
  mkdirSync(folder)
  const file = join(folder, "store.db")
  const times: number[] = []
  const started = performance.now()
  const child = spawn(process.execPath, replayArgs(transcript, file), { cwd: folder, env, stdio: ["ignore", "pipe", "pipe"] })
  createInterface({ input: child.stdout }).on("line", () => times.push(performance.now() - started))
  const exit = await new Promise<number | null>((resolve) => child.on("close", resolve))
  if (exit !== 0 || times.length === 0) throw new Error(`the clean replay exited ${exit} after ${times.length} lines`)
  const first = times[0] ?? 0
  const last = times.at(-1) ?? first
  return { digest: rawDigest(file), firstLineMs: first, lineMs: (last - first) / Math.max(1, times.length - 1), lines: times.length }
}

type KillPoint = { afterLines: number; delayMs: number }

/** One in seven kills lands while the process starts and creates the store; the others during or between passes. */
function killPoint(random: () => number, clean: CleanRun): KillPoint {
  if (random() < 1 / 7) return { afterLines: 0, delayMs: random() * clean.firstLineMs }
  return { afterLines: 1 + Math.floor(random() * (clean.lines - 1)), delayMs: random() * clean.lineMs }
}

/** Spawns the replay and SIGKILLs it `delayMs` after its `afterLines`-th pass line (or its start). */
async function runAndKill(args: string[], env: Record<string, string>, cwd: string, when: KillPoint): Promise<{ exited: boolean }> {
  const child = spawn(process.execPath, args, { cwd, env, stdio: ["ignore", "pipe", "ignore"] })
  let killedByUs = false
  const kill = (): void => {
    setTimeout(() => {
      killedByUs = child.kill("SIGKILL")
    }, when.delayMs)
  }
  let lines = 0
  if (when.afterLines === 0) kill()
  createInterface({ input: child.stdout }).on("line", () => {
    lines += 1
    if (lines === when.afterLines) kill()
  })
  const signal = await new Promise<NodeJS.Signals | null>((resolve) => child.on("close", (_code, closedBy) => resolve(closedBy)))
  return { exited: !(killedByUs && signal === "SIGKILL") }
}

function replayArgs(transcript: string, file: string): string[] {
  return [BIN, "replay", transcript, "--db", file, "--json"]
}

/** HOME and XDG folders of the probe's own, so no user config changes what the replay does. */
function isolatedEnv(root: string): Record<string, string> {
  const home = join(root, "home")
  mkdirSync(home)
  return { PATH: process.env["PATH"] ?? "", HOME: home, XDG_CONFIG_HOME: join(home, ".config"), XDG_DATA_HOME: join(home, ".data") }
}

/** A small seeded PRNG (mulberry32): the same seed kills at the same points. */
function mulberry32(seed: number): () => number {
  let state = seed >>> 0
  return () => {
    state = (state + 0x6d2b79f5) >>> 0
    let value = state
    value = Math.imul(value ^ (value >>> 15), value | 1)
    value ^= value + Math.imul(value ^ (value >>> 7), value | 61)
    return ((value ^ (value >>> 14)) >>> 0) / 4_294_967_296
  }
}
