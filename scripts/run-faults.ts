import { spawnSync } from "node:child_process"
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import type { FaultTally } from "../test/faults/fault-table.js"

// `npm run test:faults`: the whole fault suite (vitest project "faults"), then the table of probes it tallied.
const dir = mkdtempSync(join(tmpdir(), "mc-faults-"))
const table = join(dir, "table.jsonl")
const run = spawnSync("npx", ["vitest", "run", "--project", "faults", ...process.argv.slice(2)], {
  stdio: "inherit",
  env: { ...process.env, MAGIC_CONTEXT_FAULT_TABLE: table, MAGIC_CONTEXT_FAULT_SUITE: "1" },
})
const tallies: FaultTally[] = existsSync(table)
  ? readFileSync(table, "utf8")
      .split("\n")
      .filter(Boolean)
      .map((line) => JSON.parse(line) as FaultTally)
  : []
rmSync(dir, { recursive: true, force: true })
if (tallies.length > 0) {
  const width = Math.max(5, ...tallies.map((tally) => tally.probe.length))
  console.log(`\n${"probe".padEnd(width)}  tried  survived  lost`)
  for (const tally of tallies) {
    console.log(
      `${tally.probe.padEnd(width)}  ${String(tally.tried).padStart(5)}  ${String(tally.survived).padStart(8)}  ${String(tally.lost).padStart(4)}`,
    )
  }
}
process.exit(run.status ?? 1)
