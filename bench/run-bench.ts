/**
 * `npm run bench`: what one transform call costs, and how that grows with session length, on synthetic sessions of
 * 100, 1,000, 5,000 and 10,000 messages (a realistic mix of user text, assistant text and tool outputs; 10,000
 * messages hold about 3.3M tokens). Every call goes through the plugin's real `experimental.chat.messages.transform`
 * hook (bench/hook-harness.ts) with a fresh copy of the session, made outside the timing, as OpenCode hands one to
 * every call; next to it, in the same process, a passthrough hook that only walks the messages. Reported as medians,
 * p95 and ratios (the machines are shared and noisy). Each size runs in a process of its own, so its peak RSS is that
 * size's, harness included; beside it, the harness alone at each size in a fresh process (bench/harness-rss.ts), the
 * floor any plugin's peak stands on. The replay calls are timed after `BENCH_WARMUP` untimed ones (15 by default; the
 * cold call's own time is reported apart): the first replays after the cold call run before the JIT has settled, which
 * a host pays once per process (under Node, 15 replays timed at once had a median of 1.68 ms at 1,000 messages, 60
 * had 0.97). Each replay round also times, on fresh copies, the passthrough walk and the floor pass (bench/floor-pass.ts:
 * every item's ids checked and its tagged text written, the least a pass that tags every item can do): the replay
 * target is a ratio to that floor, measured in the same run.
 * Prints a table and writes bench/results/bench-<runtime>.json.
 * `npm run bench` runs it under Node (better-sqlite3) and then under Bun (bun:sqlite, OpenCode's own runtime: the
 * `opencode` binary with BUN_BE_BUN=1).
 *
 *   npm run bench                                               both runtimes
 *   node --expose-gc --import tsx bench/run-bench.ts            Node only (without --expose-gc: no plugin heap)
 *   BUN_BE_BUN=1 node_modules/.bin/opencode bench/run-bench.ts  Bun only
 *   BENCH_SIZES=100,1000 BENCH_ROUNDS=20 npm run bench
 *   BENCH_COPY=clone npm run bench                              copies by structuredClone (bench/synthetic-session.ts)
 *   BENCH_GC=1 npm run bench                                    a full collection before each call (memory, not time)
 *   BENCH_WARMUP=0 npm run bench                                the replays timed right after the cold call
 */
import { spawnSync } from "node:child_process"
import { mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"
import { queueDrops } from "../src/store/applied-state-repository.js"
import { listPasses } from "../src/store/pass-repository.js"
import { createTokenCounterPool } from "../src/tokens/tiktoken-counter.js"
import type { HostMessage } from "../src/transcript/host-message.js"
import { itemEdits, timedFloor } from "./floor-pass.js"
import { hookHarness, type HookHarness } from "./hook-harness.js"
import { nextDropTarget } from "./next-drop.js"
import { collectBetweenCalls, COLLECT_BETWEEN_CALLS, COPY_MODE, freshCopies, syntheticSession, timedWalk } from "./synthetic-session.js"

const SIZES = (process.env["BENCH_SIZES"] ?? "100,1000,5000,10000").split(",").map(Number)
const ROUNDS = Number(process.env["BENCH_ROUNDS"] ?? 15)
const WARMUP = Number(process.env["BENCH_WARMUP"] ?? 15)
const BUN = typeof process.versions["bun"] === "string"
const RESULTS = join(dirname(fileURLToPath(import.meta.url)), "results", `bench-${BUN ? "bun" : "node"}.json`)

type Row = {
  messages: number
  rawTokens: number
  coldMs: number
  /** After the cold call, the turn of the event loop that stores what its pass cut (the whole session, off the request path). */
  coldAfterMs: number
  replayMedianMs: number
  replayP95Ms: number
  incrementalMedianMs: number
  /** After a +1 exchange call, the turn of the event loop that stores what its pass cut (off the request path). */
  incrementalAfterMedianMs: number
  /** Before a +1 exchange call, the events OpenCode sends while the step runs (its new parts finished, off the request path). */
  incrementalEventsMedianMs: number
  executeMedianMs: number
  /** How many of the execute rounds executed (the median and p95 are over these). */
  executeSamples: number
  executeP95Ms: number
  passthroughMedianMs: number
  replayOverPassthrough: number
  /** The floor pass on a fresh copy (bench/floor-pass.ts), timed in the replay rounds. */
  floorMedianMs: number
  replayOverFloor: number
  replayMsPer1kMessages: number
  countCacheHitRate: number
  dbBytesPerMillionTokens: number
  peakRssMb: number
  /** The harness alone at this size, in a fresh process (`bench/harness-rss.ts`): the peak the plugin adds to. */
  harnessRssMb: number | null
  /** The JavaScript heap the plugin holds for the session after the replay calls, after a full collection (null: Bun, or Node without --expose-gc). */
  pluginHeapMb: number | null
}

const quantile = (values: number[], q: number): number => {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? Number.NaN
}
const round = (value: number, digits = 2): number => Number(value.toFixed(digits))

let peakRss = 0
/**
 * A full collection, Node's with --expose-gc (npm run bench passes it); false without it, and under Bun, whose
 * `heapUsed` after `Bun.gc(true)` gave deltas from −78 to +111 MB for the same code (not a measure).
 */
const collect = (): boolean => {
  if (BUN || typeof globalThis.gc !== "function") return false
  globalThis.gc()
  return true
}
const sample = (): void => {
  peakRss = Math.max(peakRss, process.memoryUsage().rss)
}

/**
 * One transform call through the real hook, timed; the copy is made by the caller, outside the timing. Then a turn of
 * the event loop, as the host's request gives one (`afterCall`), its time added to `after` when given.
 */
async function pass(harness: HookHarness, messages: HostMessage[], after?: number[]): Promise<number> {
  collectBetweenCalls()
  const started = performance.now()
  await harness.transform(messages)
  const ms = performance.now() - started
  sample()
  const afterMs = await harness.afterCall()
  after?.push(afterMs)
  return ms
}

async function measure(size: number): Promise<Row> {
  const dir = mkdtempSync(join(tmpdir(), "magic-context-bench-"))
  const file = join(dir, "bench.db")
  const sessionID = `bench-${size}`
  const harness = hookHarness({ dbFile: file, sessionID })
  const all = syntheticSession({ messageCount: size + ROUNDS * 6 + 2, sessionID })
  const base = all.slice(0, size)
  // What the plugin keeps for the session is the heap it adds beside the harness's own session (already allocated).
  const heapBefore = collect() ? process.memoryUsage().heapUsed : null
  // A window the session does not fill: replay calls without pressure work.
  await harness.useWindow(100_000_000)

  const coldAfter: number[] = []
  const cold = await pass(harness, freshCopies(base), coldAfter)
  const state = await harness.state()
  const rawTokens = [...state.parts.values()].reduce((sum, part) => sum + part.tokens + part.callTokens, 0)

  const edits = itemEdits(base)
  // The walk and the floor warm up with the replays: the ratios compare three settled measures.
  for (let call = 0; call < WARMUP; call += 1) {
    await pass(harness, freshCopies(base))
    timedWalk(freshCopies(base))
    timedFloor(freshCopies(base), edits)
  }
  const replay: number[] = []
  const passthrough: number[] = []
  const floor: number[] = []
  let counted = 0
  let cached = 0
  for (let round = 0; round < ROUNDS; round += 1) {
    const copy = freshCopies(base)
    const before = state.parts.size
    replay.push(await pass(harness, copy))
    cached += copy.reduce((sum, message) => sum + message.parts.length, 0) - (state.parts.size - before)
    counted += state.parts.size - before
    const walk = freshCopies(base)
    collectBetweenCalls()
    passthrough.push(timedWalk(walk))
    const tagged = freshCopies(base)
    collectBetweenCalls()
    floor.push(timedFloor(tagged, edits))
  }
  // Each round one more exchange: the user's message and the assistant's text and tool call with its result, their
  // parts reported finished first (`message.part.updated`, outside the timing) as OpenCode reports them while the step runs.
  const heapAfter = heapBefore !== null && collect() ? process.memoryUsage().heapUsed : null
  const incremental: number[] = []
  const incrementalAfter: number[] = []
  const incrementalEvents: number[] = []
  for (let round = 0; round < ROUNDS; round += 1) {
    incrementalEvents.push(await harness.partsUpdated(freshCopies(all.slice(size + round * 2, size + (round + 1) * 2))))
    incremental.push(await pass(harness, freshCopies(all.slice(0, size + (round + 1) * 2)), incrementalAfter))
  }

  // Execute calls: each round the session grows by four messages (so settled ones become a new compartment), a drop
  // of the oldest live tool output is queued (as ctx_reduce queues it), and the model's window is one the last prompt
  // fills to ~70%: work is due at the threshold every round.
  const execute: number[] = []
  const db = await harness.runtime.database()
  let prompt = rawTokens
  for (let round = 0; round < ROUNDS; round += 1) {
    const target = nextDropTarget(state)
    if (target !== null) for (const drop of queueDrops(db, state.sessionId, [target], { pass: null, now: Date.now() })) state.queued.set(drop.tag, drop)
    await harness.useWindow(Math.round(prompt / 0.7))
    const ms = await pass(harness, freshCopies(all.slice(0, size + ROUNDS * 2 + (round + 1) * 4)))
    const [last] = listPasses(db, state.sessionId, 1)
    if (last?.decision === "execute") execute.push(ms)
    prompt = last?.renderedTokens ?? prompt
  }

  await harness.dispose()
  db.close()
  const dbBytes = statSync(file).size + safeSize(`${file}-wal`)
  rmSync(dir, { recursive: true, force: true })
  const replayMedian = quantile(replay, 0.5)
  return {
    messages: size,
    rawTokens,
    coldMs: round(cold),
    coldAfterMs: round(coldAfter[0] ?? Number.NaN),
    replayMedianMs: round(replayMedian),
    replayP95Ms: round(quantile(replay, 0.95)),
    incrementalMedianMs: round(quantile(incremental, 0.5)),
    incrementalAfterMedianMs: round(quantile(incrementalAfter, 0.5)),
    incrementalEventsMedianMs: round(quantile(incrementalEvents, 0.5)),
    executeMedianMs: round(quantile(execute, 0.5)),
    executeSamples: execute.length,
    executeP95Ms: round(quantile(execute, 0.95)),
    passthroughMedianMs: round(quantile(passthrough, 0.5), 3),
    replayOverPassthrough: round(replayMedian / Math.max(quantile(passthrough, 0.5), 1e-6), 1),
    floorMedianMs: round(quantile(floor, 0.5), 3),
    replayOverFloor: round(replayMedian / Math.max(quantile(floor, 0.5), 1e-6), 1),
    replayMsPer1kMessages: round((replayMedian / size) * 1_000),
    countCacheHitRate: round(cached / Math.max(1, cached + counted), 4),
    dbBytesPerMillionTokens: Math.round((dbBytes / Math.max(1, rawTokens)) * 1_000_000),
    peakRssMb: round(peakRss / 1_048_576, 1),
    harnessRssMb: harnessPeakRss(size),
    pluginHeapMb: heapBefore !== null && heapAfter !== null ? round((heapAfter - heapBefore) / 1_048_576, 1) : null,
  }
}

/** The peak RSS of the harness's own work at `size` (the session and every call's fresh copy), without the plugin. */
function harnessPeakRss(size: number): number | null {
  const script = join(dirname(fileURLToPath(import.meta.url)), "harness-rss.ts")
  const env = { ...process.env, HARNESS_SIZE: String(size), HARNESS_CALLS: String(1 + 3 * WARMUP + 5 * ROUNDS), HARNESS_ROUNDS: String(ROUNDS) }
  const run = spawnSync(process.execPath, [...process.execArgv, script], { env, encoding: "utf8" })
  if (run.status !== 0) {
    process.stderr.write(`harness-rss at ${size} failed: ${run.stderr}\n`)
    return null
  }
  return (JSON.parse(run.stdout) as { peakRssMb: number }).peakRssMb
}

/** `measure(size)` in a process of its own: a size's peak RSS is not one an earlier size left behind. */
function measureApart(size: number): Row {
  const script = fileURLToPath(import.meta.url)
  const env = { ...process.env, BENCH_SIZES: String(size), BENCH_ROW_ONLY: "1" }
  const run = spawnSync(process.execPath, [...process.execArgv, script], { env, encoding: "utf8", stdio: ["ignore", "pipe", "inherit"], maxBuffer: 1 << 24 })
  const last = run.stdout.trim().split("\n").pop() ?? ""
  if (run.status !== 0 || !last.startsWith("{")) throw new Error(`the bench at ${size} messages failed (exit ${run.status}): ${run.stdout}`)
  return JSON.parse(last) as Row
}

function safeSize(file: string): number {
  try {
    return statSync(file).size
  } catch {
    return 0
  }
}

// A size's row alone, printed for the process that runs each size in one of its own (`measureApart`).
if (process.env["BENCH_ROW_ONLY"] === "1") {
  const [size] = SIZES
  if (SIZES.length !== 1 || size === undefined) throw new Error("BENCH_ROW_ONLY measures one size")
  process.stdout.write(`${JSON.stringify(await measure(size))}\n`)
  process.exit(0)
}
const pool = createTokenCounterPool()
const counter = pool.counterFor("o200k_base")
const warm = performance.now()
counter.count("warm up the encoder")
const encoderLoadMs = performance.now() - warm
const text = syntheticSession({ messageCount: 400 })
  .flatMap((message) => message.parts)
  .map((part) => (part.type === "text" ? part.text : part.type === "tool" && part.state.status === "completed" ? part.state.output : ""))
  .join("\n")
const countStarted = performance.now()
const countedTokens = counter.count(text)
const tokensPerSecond = Math.round(countedTokens / ((performance.now() - countStarted) / 1_000))

const rows: Row[] = []
for (const size of SIZES) rows.push(measureApart(size))
pool.dispose()

const runtime = BUN ? `bun ${process.versions["bun"]} (bun:sqlite)` : `node ${process.versions.node} (better-sqlite3)`
const header = ["messages", "raw tokens", "cold ms (+ after)", "replay ms (p50/p95)", "events before ms", "+1 exchange ms", "then after ms", "execute ms (p50/p95, n)", "walk ms", "replay/walk", "floor ms", "replay/floor", "ms per 1k msgs", "count hits", "DB bytes/1M tok", "peak RSS MB", "harness RSS MB", "plugin heap MB"]
const table = rows.map((row) => [
  row.messages,
  row.rawTokens,
  `${row.coldMs} + ${row.coldAfterMs}`,
  `${row.replayMedianMs} / ${row.replayP95Ms}`,
  row.incrementalEventsMedianMs,
  row.incrementalMedianMs,
  row.incrementalAfterMedianMs,
  `${row.executeMedianMs} / ${row.executeP95Ms}, ${row.executeSamples}`,
  row.passthroughMedianMs,
  row.replayOverPassthrough,
  row.floorMedianMs,
  row.replayOverFloor,
  row.replayMsPer1kMessages,
  `${(row.countCacheHitRate * 100).toFixed(1)}%`,
  row.dbBytesPerMillionTokens,
  row.peakRssMb,
  row.harnessRssMb ?? "n/a",
  row.pluginHeapMb ?? "n/a",
])
const widths = header.map((cell, column) => Math.max(cell.length, ...table.map((line) => String(line[column]).length)))
const format = (cells: (string | number)[]): string => cells.map((cell, column) => String(cell).padStart(widths[column] ?? 0)).join("  ")
process.stdout.write(`magic-context bench on ${runtime}, ${ROUNDS} rounds per measure (replays after ${WARMUP} untimed), copies by ${COPY_MODE}${COLLECT_BETWEEN_CALLS ? ", a full collection before each call" : ""}; o200k_base loads in ${encoderLoadMs.toFixed(0)} ms and counts ${tokensPerSecond.toLocaleString("en-US")} tokens/s\n\n`)
process.stdout.write(`${format(header)}\n${format(widths.map((width) => "-".repeat(width)))}\n${table.map(format).join("\n")}\n`)
mkdirSync(dirname(RESULTS), { recursive: true })
writeFileSync(RESULTS, `${JSON.stringify({ runtime, rounds: ROUNDS, warmup: WARMUP, copies: COPY_MODE, collectBetweenCalls: COLLECT_BETWEEN_CALLS, encoderLoadMs: round(encoderLoadMs), tokensPerSecond, rows }, null, 2)}\n`)
process.stdout.write(`\nwrote ${RESULTS}\n`)
