import { fileURLToPath } from "node:url"
import { describe, expect, it } from "vitest"
import { recordFaultTally } from "./fault-table.js"
import { killReplayProbe } from "./kill-replay-probe.js"

// The kill -9 probe at full strength: forty seeded kills of a replay of an OpenCode export with over a hundred
// passes (only in `npm run test:faults`).
const TRANSCRIPT = fileURLToPath(new URL("../../fixtures/synthetic/opencode-quayside-berths.json", import.meta.url))
const KILLS = 40

describe("replay --db killed with SIGKILL (40 kills)", () => {
  it("leaves an intact store holding a clean run's raw rows after some pass, and a rerun ends with all of them", async () => {
    const report = await killReplayProbe({ transcript: TRANSCRIPT, kills: KILLS, seed: 2_026 })
    const lost = report.outcomes.filter((outcome) => outcome.failures.length > 0)
    const probe = `kill -9 during replay --db (${KILLS} kills)`
    recordFaultTally({ probe, tried: KILLS, survived: KILLS - lost.length, lost: lost.length })
    const landings = new Map<string, number>()
    for (const outcome of report.outcomes) {
      const where = outcome.landed.startsWith("after ") && outcome.landed.endsWith(" passes") ? "during the passes" : outcome.landed
      landings.set(where, (landings.get(where) ?? 0) + 1)
    }
    const leftovers = report.outcomes.reduce((sum, outcome) => sum + outcome.leftovers, 0)
    const summary = [...landings].map(([landed, count]) => `${count} ${landed}`).join(", ")
    console.log(`kills over ${report.passes} passes: ${summary}; ${leftovers} creation leftovers`)
    expect(report.passes).toBeGreaterThan(100)
    expect(lost).toEqual([])
  })
})
