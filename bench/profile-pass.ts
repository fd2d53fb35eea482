/**
 * `npm run bench:profile`: where one transform pass spends its time. Runs replay passes (nothing to apply) and then
 * execute passes (a queued drop each round, a window the session fills to ~70%) on a synthetic 1,000-message
 * session under the V8 CPU profiler, one profile per kind, and prints the functions with the most self time.
 *
 *   npm run bench:profile                  both kinds, 1,000 messages
 *   PROFILE_MESSAGES=10000 npm run bench:profile
 *   PROFILE_TOP=30 npm run bench:profile   the 30 functions and files with the most self time (10 and 8 by default)
 *   PROFILE_WARMUP=0 npm run bench:profile the first execute passes too (by default 2 run before the profiler
 *                                          starts: the first fold cuts and folds most of the session at once,
 *                                          a cost the bench's median leaves out)
 */
import { Session } from "node:inspector/promises"
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"
import { defaultConfig } from "../src/config/schema.js"
import { createHistoryPlanner } from "../src/pass/history-planner.js"
import { runPass } from "../src/pass/run-pass.js"
import { createSessionRegistry } from "../src/pass/session-registry.js"
import { systemClock } from "../src/pass/system-clock.js"
import { applyEdits } from "../src/session/apply-edits.js"
import { fixedWindow, type WindowSettings } from "../src/pressure/model-window.js"
import { queueDrops } from "../src/store/applied-state-repository.js"
import { openDatabase } from "../src/store/open-database.js"
import { createTokenCounterPool } from "../src/tokens/tiktoken-counter.js"
import type { HostMessage } from "../src/transcript/host-message.js"
import { nextDropTarget } from "./next-drop.js"
import { freshCopies, syntheticSession } from "./synthetic-session.js"
import { selfTimeByFile, topSelfTime, type CpuProfile } from "./top-self-time.js"

const MESSAGES = Number(process.env["PROFILE_MESSAGES"] ?? 1000)
const ROUNDS = Number(process.env["PROFILE_ROUNDS"] ?? 30)
const WARMUP = Number(process.env["PROFILE_WARMUP"] ?? 2)
const OUT = join(dirname(fileURLToPath(import.meta.url)), "results", "profile")

const pool = createTokenCounterPool()
const counter = pool.counterFor("o200k_base")
const dir = mkdtempSync(join(tmpdir(), "magic-context-profile-"))
const db = await openDatabase(join(dir, "profile.db"))
const registry = createSessionRegistry({ db, now: () => Date.now() })
const info = { id: "profile", source: "replay" as const, projectId: null, directory: null, title: null }
const state = registry.stateFor(info, counter)
const caches = registry.sessionFor(info, counter).caches
const history = createHistoryPlanner({ db, sessionId: state.sessionId, counter, policy: "default" })
const all = syntheticSession({ messageCount: MESSAGES + (WARMUP + ROUNDS) * 4, sessionID: "profile" })
const base = all.slice(0, MESSAGES)
let now = 1_800_000_000_000

const pass = (messages: HostMessage[], window: WindowSettings): { decision: string; tokens: number } => {
  const result = runPass({ db, state, caches, messages, counter, history, clock: systemClock, trigger: "transform", tagsVisible: true, window, fixedTokens: 0, now: (now += 1_000), smartDrops: false })
  applyEdits(messages, result.edits)
  return { decision: result.decision, tokens: result.breakdown.total }
}

const roomy = fixedWindow({ usableTokens: 100_000_000, config: defaultConfig() })
pass(freshCopies(base), roomy)
const rawTokens = [...state.parts.values()].reduce((sum, part) => sum + part.tokens + part.callTokens, 0)
// An execute pass needs usage over the threshold: each round's window puts the last prompt at ~70% of it.
const tightFor = (promptTokens: number): WindowSettings => fixedWindow({ usableTokens: Math.round(promptTokens / 0.7), config: defaultConfig() })

const session = new Session()
session.connect()
await session.post("Profiler.enable")
await session.post("Profiler.setSamplingInterval", { interval: 100 })
mkdirSync(OUT, { recursive: true })

async function profile(kind: string, run: () => void): Promise<void> {
  await session.post("Profiler.start")
  const started = performance.now()
  run()
  const elapsed = performance.now() - started
  const { profile } = (await session.post("Profiler.stop")) as { profile: CpuProfile }
  writeFileSync(join(OUT, `${kind}.cpuprofile`), JSON.stringify(profile))
  process.stdout.write(`\n${kind} passes: ${ROUNDS} in ${elapsed.toFixed(0)} ms (${(elapsed / ROUNDS).toFixed(2)} ms each), top self time:\n`)
  for (const entry of topSelfTime(profile, Number(process.env["PROFILE_TOP"] ?? 10))) {
    process.stdout.write(`  ${entry.share.toFixed(1).padStart(5)}%  ${entry.name}  ${entry.location}\n`)
  }
  process.stdout.write("  by file:\n")
  for (const entry of selfTimeByFile(profile, Number(process.env["PROFILE_TOP"] ?? 8))) process.stdout.write(`  ${entry.share.toFixed(1).padStart(5)}%  ${entry.file}\n`)
}

// The host hands the transform fresh copies every call; making them is the harness's cost, not the pass's.
const replayCopies = Array.from({ length: ROUNDS }, () => freshCopies(base))
await profile("replay", () => {
  for (const messages of replayCopies) pass(messages, roomy)
})
// Each execute round the session grows by four messages: settled ones become a new compartment, work is due.
const executeCopies = Array.from({ length: WARMUP + ROUNDS }, (_, round) => freshCopies(all.slice(0, MESSAGES + (round + 1) * 4)))
let prompt = rawTokens
let executes = 0
const executeRound = (messages: HostMessage[]): void => {
  const target = nextDropTarget(state)
  if (target !== null) for (const drop of queueDrops(db, state.sessionId, [target], { pass: null, now })) state.queued.set(drop.tag, drop)
  const result = pass(messages, tightFor(prompt))
  if (result.decision === "execute") executes += 1
  prompt = result.tokens
}
executeCopies.slice(0, WARMUP).forEach(executeRound)
executes = 0
await profile("execute", () => executeCopies.slice(WARMUP).forEach(executeRound))
process.stdout.write(`\n${executes} of ${ROUNDS} profiled passes executed\n`)
session.disconnect()
db.close()
pool.dispose()
rmSync(dir, { recursive: true, force: true })
process.stdout.write(`\nprofiles written to ${OUT} (open them in Chrome DevTools or speedscope)\n`)
