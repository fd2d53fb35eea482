import { readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { evaluateProbes } from "../../src/lab/evaluate-probes.js"
import { parseProbeFile, type Probe } from "../../src/lab/probe-file.js"
import { probeAtTurns, recordTurns } from "../../src/lab/probe-turns.js"
import { importClaudeCode } from "../../src/transcript/importers/claude-code.js"
import { wordCounter } from "../helpers/host-messages.js"
import { createTempDirs } from "../helpers/temp-dirs.js"
import { tracePath } from "../transcript/trace-path.js"

const TRACE = tracePath("claudecode-opus46-spotter-gqc.jsonl")
const SOURCE_LINES = readFileSync(TRACE, "utf8").split("\n")

const dirs = createTempDirs()
let folder: string

/** The first `count` records of the real Claude Code session, as a transcript file of their own. */
function head(count: number): string {
  const name = `claudecode-head-${count}.jsonl`
  writeFileSync(join(folder, name), `${SOURCE_LINES.slice(0, count).join("\n")}\n`)
  return name
}

function probesOf(entries: readonly Record<string, unknown>[]): Probe[] {
  const parsed = parseProbeFile(JSON.stringify(entries), join(folder, "probes.json"))
  if (!parsed.ok) throw new Error(parsed.error)
  return parsed.value
}

beforeAll(() => {
  folder = dirs.make("probe-turns")
})

afterAll(() => {
  dirs.cleanup()
})

describe("recordTurns", () => {
  const turns = recordTurns(importClaudeCode(SOURCE_LINES.join("\n"), { file: TRACE }))

  it("maps each record of a merged model response to the turn of its first record", () => {
    // Lines 5-14 are one response (text, thinking, text, three Bash calls); lines 48-78 another, results in between.
    expect([5, 6, 7, 8, 13, 14].map((record) => turns.get(record))).toEqual([5, 5, 5, 5, 5, 5])
    expect([48, 50, 70, 78].map((record) => turns.get(record))).toEqual([48, 48, 48, 48])
    expect(turns.get(53)).toBe(53)
  })

  it("maps a queued message's enqueue record to the turn that carries it, and skipped records to nothing", () => {
    expect(turns.get(602)).toBe(606)
    expect(turns.get(603)).toBeUndefined()
    expect(turns.get(0)).toBeUndefined()
  })
})

describe("probeAtTurns", () => {
  const turns = new Map([
    [5, 5],
    [7, 5],
    [17, 17],
  ])
  const probe = (t: number, need: number | null): Probe => ({
    id: "p",
    trace: "s.jsonl",
    tracePath: "/s.jsonl",
    kind: need === null ? "incidental" : "identifier",
    t,
    need,
    exact: "x",
  })

  it.each([
    ["a later record of a merged turn", probe(7, 17), { t: 5, need: 17 }],
    ["a need in a merged turn", probe(5, 7), { t: 5, need: 5 }],
    ["records no turn holds", probe(3, 9), { t: 3, need: 9 }],
    ["no need", probe(7, null), { t: 5, need: null }],
  ])("moves t and need for %s", (_, given, expected) => {
    expect(probeAtTurns(given, turns)).toMatchObject(expected)
  })
})

describe("evaluateProbes on Claude Code records merged into one turn", () => {
  it("accepts a probe whose t and need are later records of merged responses, and checks it at the need's call", async () => {
    // Records 0-87: the last model response is lines 82-84 (thinking, text, Glob call), then its result at 87.
    const trace = head(88)
    const probes = probesOf([
      { id: "t-later", trace, kind: "decision_rationale", t: 7, need: 83, exact: "Let me start by understanding what" },
      { id: "t-first", trace, kind: "constraint", t: 4, need: 84, exact: "Implement spotter-gqc" },
    ])
    const evaluation = await evaluateProbes({ probes, policies: [], windows: [], counter: wordCounter })
    expect(evaluation.validity).toEqual([
      { probeId: "t-later", valid: true, problems: [] },
      { probeId: "t-first", valid: true, problems: [] },
    ])
    expect(evaluation.verdicts.map((verdict) => [verdict.probeId, verdict.needTurn, verdict.survived])).toEqual([
      ["t-later", 82, true],
      ["t-first", 82, true],
    ])
  })

  it("accepts a probe on a queued message at its enqueue record, needed when the agent acts on it", async () => {
    // Line 602 enqueues it; the model got it with the result at 606 and answers at 624 ("the new beads you mentioned").
    const trace = head(640)
    const exact = "new beads for the epic were added. tackle them"
    const probes = probesOf([{ id: "queued", trace, kind: "constraint", t: 602, need: 624, exact }])
    const evaluation = await evaluateProbes({ probes, policies: [], windows: [], counter: wordCounter })
    expect(evaluation.validity).toEqual([{ probeId: "queued", valid: true, problems: [] }])
    expect(evaluation.verdicts.map((verdict) => [verdict.needTurn, verdict.survived])).toEqual([[624, true]])
  })
})
