/**
 * `npm run bench:floor`: the least a pass that tags every item can cost, next to what the plugin's two steps over the
 * host's fresh copy cost. On the synthetic session (bench/synthetic-session.ts), each round on a fresh copy (made
 * outside the timing, as OpenCode hands one to every call), medians over the rounds, as ratios to the passthrough walk
 * the main bench compares with:
 * - walk: the passthrough (every part's id read);
 * - write: every item's prefixed text written into its part, by direct reference (no lookup at all);
 * - compare: each item's message and part id compared with the copy's, as any check that the copy is the one the
 *   edits were made for must;
 * - floor: both in one walk, each item's ids checked and its prefixed text written (the floor of a pass that tags
 *   every item of the host's copy; the replay target is measured against it);
 * - beginPass: the message memo's check of the copy (`session/message-memo.ts`);
 * - applyEdits: the shell writing the same edits by id (`session/apply-edits.ts`).
 * Run under Node and under Bun (OpenCode's runtime):
 *
 *   node --import tsx bench/apply-floor.ts
 *   BUN_BE_BUN=1 node_modules/.bin/opencode bench/apply-floor.ts
 *   BENCH_SIZES=1000,10000 BENCH_ROUNDS=41 npm run bench:floor
 */
import { applyEdits } from "../src/session/apply-edits.js"
import { beginPass, createMessageMemo } from "../src/session/message-memo.js"
import type { HostMessage } from "../src/transcript/host-message.js"
import { compareIds, itemEdits, tagAndCheck, writeDirect } from "./floor-pass.js"
import { freshCopies, syntheticSession, walkParts } from "./synthetic-session.js"

const SIZES = (process.env["BENCH_SIZES"] ?? "1000,10000").split(",").map(Number)
const ROUNDS = Number(process.env["BENCH_ROUNDS"] ?? 31)
const RUNTIME = typeof process.versions["bun"] === "string" ? `Bun ${process.versions["bun"]}` : `Node ${process.versions.node}`

const median = (values: readonly number[]): number => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? Number.NaN

console.log(`${RUNTIME}: medians of ${ROUNDS} rounds, each on a fresh copy; × = ratio to the walk`)
console.log(["messages", "items", "walk ms", "write", "compare", "floor", "beginPass", "applyEdits"].join("\t"))
for (const size of SIZES) {
  const session = syntheticSession({ messageCount: size })
  const edits = itemEdits(session)
  const memo = createMessageMemo()
  beginPass(memo, freshCopies(session))
  const times = { walk: [] as number[], write: [] as number[], compare: [] as number[], floor: [] as number[], begin: [] as number[], apply: [] as number[] }
  const timed = (into: number[], run: (copy: HostMessage[]) => unknown): void => {
    const copy = freshCopies(session)
    const started = performance.now()
    const result = run(copy)
    into.push(performance.now() - started)
    if (result === 0) throw new Error("the session has no items")
  }
  for (let round = 0; round < ROUNDS; round += 1) {
    timed(times.walk, walkParts)
    timed(times.write, (copy) => writeDirect(copy, edits))
    timed(times.compare, (copy) => compareIds(copy, edits))
    timed(times.floor, (copy) => tagAndCheck(copy, edits))
    timed(times.begin, (copy) => beginPass(memo, copy))
    timed(times.apply, (copy) => applyEdits(copy, edits))
  }
  const base = median(times.walk)
  const ratio = (values: number[]): string => `${median(values).toFixed(2)} ms ${(median(values) / base).toFixed(1)}×`
  console.log([size, edits.length, base.toFixed(2), ratio(times.write), ratio(times.compare), ratio(times.floor), ratio(times.begin), ratio(times.apply)].join("\t"))
}
