/**
 * The cost of one transform pass for a 1,000-message session (issue 2's closing number), on the runtime that
 * runs it: Node with better-sqlite3 (`npx tsx bench/pass-cost.ts`) or Bun with bun:sqlite, the runtime inside
 * OpenCode (`BUN_BE_BUN=1 node_modules/.bin/opencode bench/pass-cost.ts`).
 *
 * Measures, in one run: the cold pass (everything new: store + count + tag), the steady replay pass (nothing new,
 * fresh copies as the host sends them), the incremental pass (one new exchange), and a passthrough that only
 * walks the messages, so the numbers can be read as ratios on a noisy machine.
 */
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { defaultConfig } from "../src/config/schema.js"
import { applyEdits } from "../src/session/apply-edits.js"
import { fixedWindow } from "../src/pressure/model-window.js"
import { runPass } from "../src/pass/run-pass.js"
import { createSessionRegistry } from "../src/pass/session-registry.js"
import { systemClock } from "../src/pass/system-clock.js"
import { openDatabase } from "../src/store/open-database.js"
import { createTokenCounterPool } from "../src/tokens/tiktoken-counter.js"
import type { HostMessage } from "../src/transcript/host-message.js"
import { freshCopies, syntheticSession, timedWalk } from "./synthetic-session.js"

const MESSAGES = Number(process.env["BENCH_MESSAGES"] ?? 1000)
const ROUNDS = Number(process.env["BENCH_ROUNDS"] ?? 30)

const median = (values: number[]): number => {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN
}
const range = (values: number[]): string => `${Math.min(...values).toFixed(2)}-${Math.max(...values).toFixed(2)}`

const dir = mkdtempSync(join(tmpdir(), "magic-context-bench-"))
const db = await openDatabase(join(dir, "bench.db"))
const pool = createTokenCounterPool()
const counter = pool.counterFor("o200k_base")
counter.count("warm up the encoder")
const registry = createSessionRegistry({ db, now: () => Date.now() })
const info = { id: "ses_bench", source: "replay" as const, projectId: null, directory: null, title: null }
const state = registry.stateFor(info, counter)
const caches = registry.sessionFor(info, counter).caches
const full = syntheticSession({ messageCount: MESSAGES + ROUNDS * 2 })
const base = full.slice(0, MESSAGES)

// A window no synthetic session fills, so every pass is measured without pressure work.
const window = fixedWindow({ usableTokens: 10_000_000, config: defaultConfig() })

const timePass = (messages: HostMessage[]): number => {
  const started = performance.now()
  const result = runPass({
    db,
    state,
    caches,
    messages,
    counter,
    clock: systemClock,
    trigger: "transform",
    tagsVisible: true,
    window,
    fixedTokens: 0,
    now: Date.now(),
    smartDrops: false,
  })
  applyEdits(messages, result.edits)
  return performance.now() - started
}

const coldCopy = freshCopies(base)
const cold = timePass(coldCopy)

const replay: number[] = []
const passthrough: number[] = []
for (let round = 0; round < ROUNDS; round += 1) {
  const copy = freshCopies(base)
  replay.push(timePass(copy))
  passthrough.push(timedWalk(freshCopies(base)))
}

const incremental: number[] = []
for (let round = 0; round < ROUNDS; round += 1) {
  incremental.push(timePass(freshCopies(full.slice(0, MESSAGES + (round + 1) * 2))))
}

const runtime = typeof process.versions["bun"] === "string" ? `bun ${process.versions["bun"]} (${db.driver})` : `node ${process.versions.node} (${db.driver})`
const rawTokens = [...state.parts.values()].reduce((sum, part) => sum + part.tokens + part.callTokens, 0)
const report = {
  runtime,
  messages: MESSAGES,
  rawTokens,
  rounds: ROUNDS,
  coldPassMs: Number(cold.toFixed(2)),
  replayPassMedianMs: Number(median(replay).toFixed(3)),
  replayPassRangeMs: range(replay),
  incrementalPassMedianMs: Number(median(incremental).toFixed(3)),
  incrementalPassRangeMs: range(incremental),
  passthroughMedianMs: Number(median(passthrough).toFixed(3)),
  replayOverPassthrough: Number((median(replay) / Math.max(median(passthrough), 1e-6)).toFixed(1)),
}
process.stdout.write(`${JSON.stringify(report, null, 2)}\n`)
db.close()
pool.dispose()
rmSync(dir, { recursive: true, force: true })
