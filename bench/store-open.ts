/**
 * What the integrity check on open costs (issue 10): `openDatabase` on an intact file store, and `PRAGMA quick_check`
 * alone on a read-only connection, as medians over several opens, for a store holding the fixture transcripts (a few
 * thousand rows) and for synthetic sessions of 10,000 and 40,000 messages (about 1M and 4M tokens) ingested in one
 * pass each. Prints a table; the machines are shared, so read the medians, not single runs.
 *
 *   npx tsx bench/store-open.ts
 *   BENCH_STORE_SIZES=10000 BENCH_STORE_ROUNDS=5 npx tsx bench/store-open.ts
 */
import { mkdtempSync, rmSync, statSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { formatTable } from "../src/report/format-table.js"
import { runCli } from "../src/cli/main.js"
import { defaultConfig } from "../src/config/schema.js"
import { createHistoryPlanner } from "../src/pass/history-planner.js"
import { runPass } from "../src/pass/run-pass.js"
import { createSessionRegistry } from "../src/pass/session-registry.js"
import { systemClock } from "../src/pass/system-clock.js"
import { fixedWindow } from "../src/pressure/model-window.js"
import { assertIntact } from "../src/store/check-integrity.js"
import { openNodeDatabase } from "../src/store/driver-node.js"
import { openDatabase } from "../src/store/open-database.js"
import { countSessionRows } from "../src/store/raw-repository.js"
import { listSessions } from "../src/store/session-repository.js"
import { createTokenCounterPool } from "../src/tokens/tiktoken-counter.js"
import { syntheticSession } from "./synthetic-session.js"
import { createPassCaches } from "../src/pass/pass-caches.js"

const SIZES = (process.env["BENCH_STORE_SIZES"] ?? "10000,40000").split(",").map(Number)
const ROUNDS = Number(process.env["BENCH_STORE_ROUNDS"] ?? 11)
const FIXTURES = [
  "fixtures/synthetic/pi-kvgate-watch.jsonl",
  "fixtures/synthetic/pi-ledger-webhooks.jsonl",
  "fixtures/synthetic/opencode-quayside-berths.json",
  "fixtures/synthetic/opencode-verdant-irrigation.json",
  "fixtures/opencode-session/session.json",
]
const ROOT = fileURLToPath(new URL("../", import.meta.url))

type Row = { store: string; rows: number; megabytes: number; openMedianMs: number; quickCheckMedianMs: number }

const median = (values: number[]): number =>
  [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? Number.NaN

async function fixtureStore(file: string): Promise<void> {
  for (const fixture of FIXTURES) {
    const args = ["replay", join(ROOT, fixture), "--db", file]
    const code = await runCli({ args, env: {}, cwd: ROOT, stdout: () => undefined, stderr: console.error })
    if (code !== 0) throw new Error(`replay of ${fixture} failed`)
  }
}

async function syntheticStore(file: string, messageCount: number): Promise<void> {
  const pool = createTokenCounterPool()
  const counter = pool.counterFor("o200k_base")
  const db = await openDatabase(file)
  try {
    const sessionId = `bench-open-${messageCount}`
    const state = createSessionRegistry({ db, now: () => 0 }).stateFor(
      { id: sessionId, source: "replay", projectId: null, directory: null, title: null },
      counter,
    )
    runPass({
      db,
      state,
      caches: createPassCaches(),
      messages: syntheticSession({ messageCount, sessionID: sessionId }),
      counter,
      history: createHistoryPlanner({ db, sessionId, counter, policy: "default" }),
      clock: systemClock,
      trigger: "replay",
      tagsVisible: true,
      window: fixedWindow({ usableTokens: 1_000_000_000, config: defaultConfig() }),
      fixedTokens: 0,
      now: 1,
      smartDrops: false,
    })
  } finally {
    db.close()
    pool.dispose()
  }
}

async function measure(store: string, build: (file: string) => Promise<void>): Promise<Row> {
  const dir = mkdtempSync(join(tmpdir(), "magic-context-bench-open-"))
  const file = join(dir, "store.db")
  try {
    await build(file)
    const opens: number[] = []
    const checks: number[] = []
    let rows = 0
    for (let round = 0; round < ROUNDS; round += 1) {
      const started = performance.now()
      const db = await openDatabase(file)
      opens.push(performance.now() - started)
      rows = listSessions(db, 10_000).reduce((sum, session) => {
        const counts = countSessionRows(db, session.id)
        return sum + counts.messages + counts.parts + counts.tags + counts.passes
      }, 0)
      db.close()
      const reader = openNodeDatabase(file, { readOnly: true })
      const checkStarted = performance.now()
      assertIntact(reader, file)
      checks.push(performance.now() - checkStarted)
      reader.close()
    }
    const megabytes = Math.round((statSync(file).size / 1_048_576) * 10) / 10
    return { store, rows, megabytes, openMedianMs: round(median(opens)), quickCheckMedianMs: round(median(checks)) }
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

const round = (value: number): number => Math.round(value * 10) / 10

const results: Row[] = [await measure(`${FIXTURES.length} fixture transcripts`, fixtureStore)]
for (const size of SIZES) {
  results.push(await measure(`${size.toLocaleString("en-US")} synthetic messages`, (file) => syntheticStore(file, size)))
}
const table = formatTable(
  ["store", "rows (msg+part+tag+pass)", "MB", "open median ms", "quick_check median ms"],
  results.map((row) => [row.store, row.rows, row.megabytes, row.openMedianMs, row.quickCheckMedianMs]),
)
for (const line of table) console.log(line)
