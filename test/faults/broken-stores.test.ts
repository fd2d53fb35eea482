import { spawnSync } from "node:child_process"
import { createHash } from "node:crypto"
import { chmodSync, chownSync, existsSync, lstatSync, readdirSync, readFileSync } from "node:fs"
import { basename, dirname, join } from "node:path"
import { fileURLToPath } from "node:url"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { runCli } from "../../src/cli/main.js"
import { fakeCliIo } from "../helpers/fake-cli-io.js"
import { createTempDirs, createTempHome } from "../helpers/temp-dirs.js"
import { BROKEN_STORES, type BrokenStore } from "./broken-store-files.js"
import { recordFaultTally } from "./fault-table.js"
import { SURFACES, type Surface, type SurfaceOutcome } from "./open-outcome.js"
import { surfaceOutcome, type Scratch } from "./store-refusal-surfaces.js"

// The broken-store matrix: every way a store file can be unusable, against every way magic-context opens
// one (openDatabase, `replay --db`, `status --db`, `doctor`, the plugin's transform). Each must refuse with a
// message naming the file, the problem and what to do, and leave the file exactly as it was.

const REPO_ROOT = fileURLToPath(new URL("../../", import.meta.url))
const CHILD = fileURLToPath(new URL("./fixtures/refusal-child.ts", import.meta.url))
const OPENCODE_BIN = join(REPO_ROOT, "node_modules", ".bin", "opencode")
const FIXTURE = join(REPO_ROOT, "fixtures", "opencode-session", "session.json")
/** The user the read-only cases run as when the tests run as root (root ignores file modes). */
const NOBODY = 65_534
const AS_ROOT = process.getuid?.() === 0

const dirs = createTempDirs()
let good: string

beforeAll(async () => {
  good = join(dirs.make("good-store"), "magic-context.db")
  const io = fakeCliIo({ args: ["replay", FIXTURE, "--db", good], env: {}, cwd: REPO_ROOT })
  expect(await runCli(io), io.stderrText()).toBe(0)
})

afterAll(() => {
  dirs.cleanup()
})

describe("broken stores", () => {
  it.each(BROKEN_STORES.filter((store) => !store.unprivileged).map((store) => [store.name, store] as const))(
    "%s: every surface refuses it with a clear message and changes nothing (Node)",
    async (name, store) => {
      const failures: string[][] = []
      for (const surface of SURFACES) {
        const file = store.make({ dir: dirs.make("broken"), good })
        const before = snapshot(file)
        const outcome = await surfaceOutcome(surface, file, scratch())
        failures.push([...judge(store, file, outcome), ...changes(surface, before, snapshot(file))])
      }
      tally(`broken store: ${name}`, failures)
      expect(failures.flat()).toEqual([])
    },
  )

  describe("for a user who cannot write there", () => {
    const unprivileged = BROKEN_STORES.filter((store) => store.unprivileged)
    // One child runs every surface of every case (a Node start with tsx costs about a second).
    let runs: { store: BrokenStore; surface: Surface; file: string; before: Snapshot }[] = []
    let outcomes: SurfaceOutcome[] = []

    beforeAll(() => {
      runs = unprivileged.flatMap((store) =>
        SURFACES.map((surface) => {
          const file = store.make({ dir: dirs.make("broken"), good })
          return { store, surface, file, before: snapshot(file) }
        }),
      )
      outcomes = runChild({ command: process.execPath, args: ["--import", "tsx", CHILD], runs, unprivileged: true })
    })

    afterAll(() => {
      // A read-only folder cannot be emptied by a user who is not root: give it back its write bit first.
      for (const run of runs) chmodSync(dirname(run.file), 0o700)
    })

    it.each(unprivileged.map((store) => [store.name, store] as const))(
      "%s: every surface refuses it and changes nothing (Node)",
      (name, store) => {
        const failures = runs.flatMap((run, index) => {
          if (run.store !== store) return []
          const outcome = outcomes[index]
          if (!outcome) return [[`${run.surface}: no outcome`]]
          return [[...judge(store, run.file, outcome), ...changes(run.surface, run.before, snapshot(run.file))]]
        })
        tally(`broken store: ${name}`, failures)
        expect(failures.flat()).toEqual([])
      },
    )
  })

  it("refuses every case but the read-only ones under Bun (bun:sqlite) too, changing nothing", () => {
    expect(existsSync(OPENCODE_BIN), `${OPENCODE_BIN} (the opencode-ai dev dependency) provides Bun`).toBe(true)
    const runs = BROKEN_STORES.filter((store) => !store.unprivileged).map((store) => {
      const file = store.make({ dir: dirs.make("broken-bun"), good })
      return { store, surface: "open" as const, file, before: snapshot(file) }
    })
    const outcomes = runChild({ command: OPENCODE_BIN, args: [CHILD], runs, env: { BUN_BE_BUN: "1" } })
    const failures = runs.map((run, index) => {
      const outcome = outcomes[index]
      if (!outcome) return [`${run.store.name}: no outcome`]
      return [...judge(run.store, run.file, outcome), ...changes("open", run.before, snapshot(run.file))].map(
        (line) => `${run.store.name}: ${line}`,
      )
    })
    tally("broken stores under Bun (open)", failures)
    expect(failures.flat()).toEqual([])
  })
})

/** What is wrong with an outcome: accepted, a wrong code or exit, or a message missing the file, problem or fix. */
function judge(store: BrokenStore, file: string, outcome: SurfaceOutcome): string[] {
  const where = outcome.surface
  if (outcome.code === "crashed") return [`${where} crashed: ${outcome.text}`]
  if (outcome.accepted) return [`${where} accepted the store (exit ${outcome.exit}, code ${outcome.code})`]
  const failures: string[] = []
  if ((where === "open" || where === "plugin") && outcome.code !== store.code) {
    failures.push(`${where} gave code ${outcome.code}, expected ${store.code}: ${outcome.text}`)
  }
  if (where !== "open" && where !== "plugin" && outcome.exit !== 1) failures.push(`${where} exited ${outcome.exit}`)
  if (!outcome.text.includes(file)) failures.push(`${where} does not name ${file}: ${outcome.text}`)
  if (!store.problem.test(outcome.text)) failures.push(`${where} does not say ${store.problem}: ${outcome.text}`)
  if (!store.advice.test(outcome.text)) failures.push(`${where} does not say what to do (${store.advice}): ${outcome.text}`)
  return failures
}

type Entry = { kind: "file" | "directory" | "fifo" | "other"; mode: number; content: string }
type Snapshot = { store: Entry | null; wal: Entry | null; others: Record<string, Entry> }

/** The store path, its -wal and everything else in its folder (SQLite's -shm index aside), by kind, mode and bytes. */
function snapshot(file: string): Snapshot {
  const folder = dirname(file)
  const others: Record<string, Entry> = {}
  for (const name of readdirSync(folder).sort()) {
    if ([basename(file), `${basename(file)}-wal`, `${basename(file)}-shm`].includes(name)) continue
    const entry = describeEntry(join(folder, name))
    if (entry) others[name] = entry
  }
  return { store: describeEntry(file), wal: describeEntry(`${file}-wal`), others }
}

function describeEntry(path: string): Entry | null {
  if (!existsSync(path)) return null
  const stat = lstatSync(path)
  const mode = stat.mode & 0o7777
  if (stat.isFile()) return { kind: "file", mode, content: createHash("sha256").update(readFileSync(path)).digest("hex") }
  if (stat.isDirectory()) return { kind: "directory", mode, content: readdirSync(path).sort().join("\n") }
  return { kind: stat.isFIFO() ? "fifo" : "other", mode, content: "" }
}

/**
 * What a refusal changed. The store and a -wal that was there must be byte-identical and keep their modes, and no
 * file may appear beside them, except that a reader leaves SQLite's -shm index and an empty -wal where none was.
 */
function changes(surface: Surface, before: Snapshot, after: Snapshot): string[] {
  const failures: string[] = []
  if (JSON.stringify(after.store) !== JSON.stringify(before.store)) failures.push(`${surface} changed the store file`)
  const emptyNewWal = before.wal === null && (after.wal === null || after.wal.content === EMPTY_SHA256)
  if (!emptyNewWal && JSON.stringify(after.wal) !== JSON.stringify(before.wal)) failures.push(`${surface} changed the -wal`)
  if (JSON.stringify(after.others) !== JSON.stringify(before.others)) {
    failures.push(`${surface} changed the folder: ${Object.keys(after.others).join(", ")}`)
  }
  return failures
}

const EMPTY_SHA256 = createHash("sha256").update("").digest("hex")

function scratch(): Scratch {
  const home = createTempHome(dirs)
  return { env: home.env, project: join(home.root, "project") }
}

/** One row of the fault table: each element of `failures` is one attempt, lost when it has any failure. */
function tally(probe: string, failures: string[][]): void {
  const lost = failures.filter((attempt) => attempt.length > 0).length
  recordFaultTally({ probe, tried: failures.length, survived: failures.length - lost, lost })
}

/**
 * Runs the refusal child over `runs` (each with its own scratch home) and returns their outcomes, in order.
 * `unprivileged` (when the tests run as root) runs it as nobody, who then owns the case folders and the scratch
 * homes, as a user owns their own store.
 */
function runChild(options: {
  command: string
  args: string[]
  runs: { surface: Surface; file: string }[]
  unprivileged?: boolean
  env?: Record<string, string>
}): SurfaceOutcome[] {
  const spec = options.runs.map((run) => ({ surface: run.surface, file: run.file, scratch: scratch() }))
  const asNobody = options.unprivileged === true && AS_ROOT
  const home = createTempHome(dirs)
  if (asNobody) {
    for (const run of spec) {
      chownTree(dirname(run.file))
      chownTree(dirname(run.scratch.project))
    }
    chownTree(home.root)
  }
  const child = spawnSync(options.command, [...options.args, JSON.stringify(spec)], {
    cwd: REPO_ROOT,
    env: { PATH: process.env["PATH"], ...home.env, NO_COLOR: "1", ...options.env },
    encoding: "utf8",
    timeout: 60_000,
    ...(asNobody ? { uid: NOBODY, gid: NOBODY } : {}),
  })
  if (child.error) throw child.error
  const line = child.stdout.trim().split("\n").at(-1) ?? ""
  if (child.status !== 0 || !line.startsWith("[")) throw new Error(`child failed (${child.status}): ${child.stderr}`)
  return JSON.parse(line) as SurfaceOutcome[]
}

/** Gives a folder and what is in it to nobody, keeping every mode. */
function chownTree(path: string): void {
  chownSync(path, NOBODY, NOBODY)
  if (!lstatSync(path).isDirectory()) return
  for (const name of readdirSync(path)) chownTree(join(path, name))
}
