import { fileURLToPath } from "node:url"
import { describe, expect, it } from "vitest"
import { recordFaultTally } from "./fault-table.js"
import { killReplayProbe } from "./kill-replay-probe.js"

// The fast part of the kill -9 probe: three kills of a short replay (the bundled OpenCode session, 14 passes);
// kill-replay.slow.test.ts kills forty times during a long one.
const TRANSCRIPT = fileURLToPath(new URL("../../fixtures/opencode-session/session.json", import.meta.url))

describe("replay --db killed with SIGKILL", () => {
  it("leaves an intact store holding a clean run's raw rows after some pass, and a rerun ends with all of them", async () => {
    const report = await killReplayProbe({ transcript: TRANSCRIPT, kills: 3, seed: 10 })
    const lost = report.outcomes.filter((outcome) => outcome.failures.length > 0)
    recordFaultTally({ probe: "kill -9 during replay --db (3 kills)", tried: 3, survived: 3 - lost.length, lost: lost.length })
    expect(report.passes).toBeGreaterThan(10)
    expect(lost).toEqual([])
  })
})
