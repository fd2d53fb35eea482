/**
 * `npm run bench:loop`: many calls of one kind through the real transform hook (bench/hook-harness.ts) on the synthetic
 * session, for a quick median while working on a step of the pass: replay calls (the same messages, a fresh copy per
 * call) or calls that each add one exchange, next to the passthrough walk over a fresh copy. Prints one line. Before
 * the timed calls it spins in `profileStart` for 20 ms, so a CPU profile can be read from there on (the cold call and
 * the session's making come before it). After each call a turn of the event loop, as the host's request gives one: what
 * the hook left for then (storing what its pass cut) runs there, and its median is printed beside the call's. Before a
 * call that adds an exchange, the events OpenCode sends while the step runs (`message.part.updated` for each new part,
 * outside the timing; what the hooks do there is printed as `events before`).
 *
 *   BENCH_SIZE=10000 BENCH_ROUNDS=60 BUN_BE_BUN=1 node_modules/.bin/opencode bench/replay-loop.ts
 *   BENCH_MODE=exchange npx tsx bench/replay-loop.ts        calls that each add an exchange, under Node
 *   BENCH_GC=1 ...                                          a full collection before each call (outside the timing)
 *   BENCH_WINDOW=200000 ...                                 a usable window the session overflows: history folds first
 */
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { hookHarness } from "./hook-harness.js"
import { collectBetweenCalls, freshCopies, syntheticSession, timedWalk } from "./synthetic-session.js"

const SIZE = Number(process.env["BENCH_SIZE"] ?? 1000)
const ROUNDS = Number(process.env["BENCH_ROUNDS"] ?? 60)
const MODE = process.env["BENCH_MODE"] ?? "replay"
const WINDOW = process.env["BENCH_WINDOW"] === undefined ? null : Number(process.env["BENCH_WINDOW"])
if (MODE !== "replay" && MODE !== "exchange") throw new Error(`BENCH_MODE is replay or exchange, not ${MODE}`)

const median = (values: readonly number[]): number => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? Number.NaN

/** A named spin where the timed calls begin (a CPU profile's samples from here on are theirs). */
function profileStart(): number {
  const started = performance.now()
  let spins = 0
  while (performance.now() - started < 20) spins += 1
  return spins
}

const dir = mkdtempSync(join(tmpdir(), "magic-context-loop-"))
const harness = hookHarness({ dbFile: join(dir, "bench.db"), sessionID: "bench-loop" })
const all = syntheticSession({ messageCount: SIZE + ROUNDS * 2 + 2, sessionID: "bench-loop" })
const base = all.slice(0, SIZE)
// A window the session does not fill: no pressure work, as the main bench's replay calls. With BENCH_WINDOW, that
// window: one the session overflows folds history first (a few calls until the session is quiet again).
await harness.useWindow(WINDOW ?? 100_000_000)
for (let call = 0; call < (WINDOW === null ? 1 : 4); call += 1) {
  await harness.transform(freshCopies(base))
  await harness.afterCall()
}
profileStart()
const calls: number[] = []
const after: number[] = []
const walks: number[] = []
const events: number[] = []
for (let round = 0; round < ROUNDS; round += 1) {
  if (MODE === "exchange") events.push(await harness.partsUpdated(freshCopies(all.slice(SIZE + round * 2, SIZE + (round + 1) * 2))))
  const copy = MODE === "exchange" ? freshCopies(all.slice(0, SIZE + (round + 1) * 2)) : freshCopies(base)
  collectBetweenCalls()
  const started = performance.now()
  await harness.transform(copy)
  calls.push(performance.now() - started)
  after.push(await harness.afterCall())
  walks.push(timedWalk(freshCopies(base)))
}
await harness.dispose()
rmSync(dir, { recursive: true, force: true })
const runtime = typeof process.versions["bun"] === "string" ? `bun ${process.versions["bun"]}` : `node ${process.versions.node}`
const call = median(calls)
const walk = median(walks)
const before = events.length > 0 ? `events before ${median(events).toFixed(3)} ms, ` : ""
process.stdout.write(
  `${runtime} ${MODE} at ${SIZE} messages, ${ROUNDS} calls: median ${call.toFixed(3)} ms (${before}then ${median(after).toFixed(3)} ms after the call), walk ${walk.toFixed(3)} ms, ${(call / walk).toFixed(1)}x the walk\n`,
)
