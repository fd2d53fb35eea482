/**
 * The harness alone: what `bench/run-bench.ts`'s own work costs in memory at one size, without the plugin. It makes
 * the same session and as many fresh copies as the bench's calls of that size, walks each one as the passthrough
 * does, and prints the process's peak RSS in MB as JSON. The bench runs it in a fresh process per size, so the plugin's
 * share of the bench's peak is what the bench's peak holds beyond it.
 *
 *   HARNESS_SIZE=10000 HARNESS_CALLS=61 BUN_BE_BUN=1 node_modules/.bin/opencode bench/harness-rss.ts
 */
import { collectBetweenCalls, freshCopies, syntheticSession, walkParts } from "./synthetic-session.js"

const size = Number(process.env["HARNESS_SIZE"] ?? 1000)
const calls = Number(process.env["HARNESS_CALLS"] ?? 61)
const rounds = Number(process.env["HARNESS_ROUNDS"] ?? 15)
const all = syntheticSession({ messageCount: size + rounds * 6 + 2, sessionID: `bench-${size}` })
let peak = process.memoryUsage().rss
let parts = 0
for (let call = 0; call < calls; call += 1) {
  // The bench's copies grow past `size` by up to six messages a round; these grow by one a call, up to as many.
  collectBetweenCalls()
  const copy = freshCopies(all.slice(0, size + Math.min(call, rounds * 6)))
  parts += walkParts(copy)
  peak = Math.max(peak, process.memoryUsage().rss)
}
if (parts === 0) throw new Error("empty session")
process.stdout.write(`${JSON.stringify({ size, calls, peakRssMb: Math.round((peak / 1_048_576) * 10) / 10 })}\n`)
