/**
 * `npm run bench:memory`: what the plugin holds in memory over a long session, at the pace of a real one. The same
 * synthetic session as `npm run bench` (bench/synthetic-session.ts), through the real transform hook
 * (bench/hook-harness.ts), with a pause after every call as the model's answer gives one (`BENCH_IDLE`, 1 s): Bun's
 * allocator hands freed pages back to the system on a timer, so calls made back to back (as `npm run bench` makes
 * them) show a process size that grows by each call's garbage and falls again within a second of quiet.
 *
 * Per phase (the first call, replays, calls that add an exchange), the process's RSS once the phase is over and its
 * collector has run, and the highest RSS sampled during the phase (every 5 ms; a call's own synchronous work is seen
 * as it ends). `plugin` is RSS less the baseline: the harness's session and one fresh copy of it, before any call.
 * Under Node the JavaScript heap after a full collection, less the harness's session, is shown beside it (V8 keeps
 * the pages the harness's fresh copies took, so Node's RSS also holds their garbage); under Bun that number is no
 * measure and is left out.
 *
 *   npm run bench:memory                                              Node, then Bun; 10,000 messages, 200k window
 *   BENCH_SIZE=1000 BENCH_WINDOW=none npx tsx --expose-gc bench/memory-phases.ts     a window the session never fills
 *   BENCH_IDLE=0 BUN_BE_BUN=1 node_modules/.bin/opencode bench/memory-phases.ts      calls back to back
 *
 * Under Node, `BENCH_SNAPSHOT=<file>` also writes a heap snapshot after the replays, for `bench/heap-holders.ts` (what
 * holds the memory, by dominator); the phases after it then hold the snapshot's own garbage.
 */
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { hookHarness } from "./hook-harness.js"
import { freshCopies, syntheticSession } from "./synthetic-session.js"

const SIZE = Number(process.env["BENCH_SIZE"] ?? 10_000)
const WINDOW = process.env["BENCH_WINDOW"] === "none" ? 100_000_000 : Number(process.env["BENCH_WINDOW"] ?? 200_000)
const IDLE_MS = Number(process.env["BENCH_IDLE"] ?? 1_000)
const CALLS = Number(process.env["BENCH_CALLS"] ?? 5)
const BUN = typeof process.versions["bun"] === "string"

/** A full collection: Bun's, or Node's with --expose-gc (npm run bench:memory passes it). */
function collect(): void {
  const bun = (globalThis as { Bun?: { gc(force: boolean): void } }).Bun
  if (bun) bun.gc(true)
  else if (typeof globalThis.gc === "function") globalThis.gc()
  else throw new Error("run under Node with --expose-gc (npm run bench:memory does)")
}

const mb = (bytes: number): number => Math.round(bytes / 104_857.6) / 10
let phasePeak = 0
const sampler = setInterval(() => {
  phasePeak = Math.max(phasePeak, process.memoryUsage().rss)
}, 5)
const idle = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, IDLE_MS))
const SETTLE_MS = Number(process.env["BENCH_SETTLE"] ?? 500)
// V8 unmaps the pages a full collection freed on a background thread, after `gc()` returns.
const settleDelay = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, SETTLE_MS))

type Phase = { phase: string; calls: number; rssMb: number; peakMb: number; heapMb: number }
const phases: Phase[] = []
/** Ends a phase: its peak so far, then its RSS once the collector has run and handed back the pages it freed. */
async function endPhase(phase: string, calls: number): Promise<void> {
  const peak = Math.max(phasePeak, process.memoryUsage().rss)
  collect()
  await settleDelay()
  const usage = process.memoryUsage()
  phases.push({ phase, calls, rssMb: mb(usage.rss), peakMb: mb(peak), heapMb: mb(usage.heapUsed) })
  phasePeak = 0
}

const dir = mkdtempSync(join(tmpdir(), "magic-context-memory-"))
const sessionID = `bench-memory-${SIZE}`
const harness = hookHarness({ dbFile: join(dir, "bench.db"), sessionID })
const all = syntheticSession({ messageCount: SIZE + CALLS * 2 + 2, sessionID })
const base = all.slice(0, SIZE)
await harness.useWindow(WINDOW)
// The heap's baseline is the harness's session; RSS's is that and the fresh copy a call is made with (the host holds
// one while it calls the hook).
collect()
const baselineHeap = mb(process.memoryUsage().heapUsed)
let copy = freshCopies(base)
await endPhase("baseline: the session and one fresh copy", 0)
const baseline = phases[0]?.rssMb ?? 0

await harness.transform(copy)
copy = []
await harness.afterCall()
await idle()
await endPhase("the first call (ingest, cut, fold)", 1)
for (let call = 0; call < CALLS; call += 1) {
  await harness.transform(freshCopies(base))
  await harness.afterCall()
  await idle()
}
await endPhase("replays", CALLS)
const snapshot = process.env["BENCH_SNAPSHOT"]
if (snapshot !== undefined && !BUN) (await import("node:v8")).writeHeapSnapshot(snapshot)
for (let call = 0; call < CALLS; call += 1) {
  await harness.transform(freshCopies(all.slice(0, SIZE + (call + 1) * 2)))
  await harness.afterCall()
  await idle()
}
await endPhase("calls that add an exchange", CALLS)
clearInterval(sampler)
await harness.dispose()
rmSync(dir, { recursive: true, force: true })

const runtime = BUN ? `bun ${process.versions["bun"]}` : `node ${process.versions.node}`
const window = WINDOW >= 100_000_000 ? "a window it never fills" : `a ${WINDOW.toLocaleString("en-US")}-token window`
process.stdout.write(`magic-context memory on ${runtime}: ${SIZE.toLocaleString("en-US")} messages, ${window}, ${IDLE_MS} ms between calls\n\n`)
const less = (value: number, base: number): number => Math.round((value - base) * 10) / 10
const header = ["phase", "calls", "RSS MB", "plugin MB", "peak MB", "plugin peak MB", ...(BUN ? [] : ["plugin heap MB"])]
const rows = phases.map((row) => [row.phase, row.calls, row.rssMb, less(row.rssMb, baseline), row.peakMb, less(row.peakMb, baseline), ...(BUN ? [] : [less(row.heapMb, baselineHeap)])])
const widths = header.map((cell, column) => Math.max(cell.length, ...rows.map((line) => String(line[column]).length)))
const format = (cells: (string | number)[]): string => cells.map((cell, column) => (column === 0 ? String(cell).padEnd(widths[0] ?? 0) : String(cell).padStart(widths[column] ?? 0))).join("  ")
process.stdout.write(`${format(header)}\n${format(widths.map((width) => "-".repeat(width)))}\n${rows.map(format).join("\n")}\n`)
