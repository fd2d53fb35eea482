import { writeFileSync } from "node:fs"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { evaluateProbes } from "../../src/lab/evaluate-probes.js"
import { leaveOneOutFolds, type FoldReport } from "../../src/lab/leave-one-out.js"
import { parseProbeFile, type Probe } from "../../src/lab/probe-file.js"
import { rulesTunedOn } from "../../src/session/recognizers.js"
import { wordCounter } from "../helpers/host-messages.js"
import { createTempDirs } from "../helpers/temp-dirs.js"
import { SYNTHETIC, syntheticSessionJsonl } from "./synthetic-session.js"

/** The synthetic session twice: once under the name of a fixture the stage-5 rules were tuned on, once unseen. */
const TUNED = "pi-kvgate-watch.jsonl"
const UNSEEN = "session.jsonl"
const GRID = { policies: ["default", "flat"] as const, windows: [8_000, 12_000], counter: wordCounter }

const dirs = createTempDirs()
let probes: Probe[]
let report: FoldReport

beforeAll(async () => {
  const folder = dirs.make("folds")
  for (const name of [TUNED, UNSEEN]) writeFileSync(join(folder, name), syntheticSessionJsonl())
  const entries = [TUNED, UNSEEN].flatMap((trace) => [
    { id: `${trace}:constraint`, trace, kind: "constraint", t: SYNTHETIC.constraintTurn, need: SYNTHETIC.needTurn, exact: SYNTHETIC.constraint },
    { id: `${trace}:path`, trace, kind: "identifier", t: SYNTHETIC.readTurn, need: SYNTHETIC.needTurn, exact: SYNTHETIC.path },
    { id: `${trace}:decision`, trace, kind: "decision_rationale", t: SYNTHETIC.decisionTurn, need: SYNTHETIC.needTurn, exact: SYNTHETIC.decision },
  ])
  const parsed = parseProbeFile(JSON.stringify(entries), join(folder, "probes.json"))
  if (!parsed.ok) throw new Error(parsed.error)
  probes = parsed.value
  const allRules = await evaluateProbes({ ...GRID, probes })
  report = await leaveOneOutFolds({ ...GRID, probes, allRules })
})

afterAll(() => {
  dirs.cleanup()
})

describe("leaveOneOutFolds", () => {
  it("gives one row per transcript × policy × window, transcripts in path order", () => {
    expect(report.folds.map((row) => [row.trace, row.policy, row.window])).toEqual([
      [TUNED, "default", 8000],
      [TUNED, "default", 12000],
      [TUNED, "flat", 8000],
      [TUNED, "flat", 12000],
      [UNSEEN, "default", 8000],
      [UNSEEN, "default", 12000],
      [UNSEEN, "flat", 8000],
      [UNSEEN, "flat", 12000],
    ])
  })

  it("switches off the rules tuned on each transcript, and none on a transcript no rule saw", () => {
    const tuned = report.folds.filter((row) => row.trace === TUNED)
    expect(tuned[0]?.rulesOff).toEqual(rulesTunedOn(TUNED))
    expect(tuned[0]?.rulesOff).toContain("commit-hash")
    for (const row of report.folds.filter((entry) => entry.trace === UNSEEN)) {
      expect(row.rulesOff).toEqual([])
      expect(row.fold).toEqual(row.allRules)
    }
  })

  it("pools every transcript's fold per policy and window", () => {
    expect(report.pooled.map((row) => [row.policy, row.window])).toEqual([
      ["default", 8000],
      ["default", 12000],
      ["flat", 8000],
      ["flat", 12000],
    ])
    for (const pooled of report.pooled) {
      const rows = report.folds.filter((row) => row.policy === pooled.policy && row.window === pooled.window)
      expect(pooled.fold.survived).toBe(rows.reduce((sum, row) => sum + row.fold.survived, 0))
      expect(pooled.allRules.probes).toBe(rows.reduce((sum, row) => sum + row.allRules.probes, 0))
      expect(pooled.allRules.probes).toBe(6)
    }
  })
})
