import { writeFileSync } from "node:fs"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { evaluateProbes, UNREDUCED_WINDOW_TOKENS, type ProbeEvaluation } from "../../src/lab/evaluate-probes.js"
import { parseProbeFile, type Probe } from "../../src/lab/probe-file.js"
import type { LabPolicy } from "../../src/lab/probe-verdict.js"
import { wordCounter } from "../helpers/host-messages.js"
import { createTempDirs } from "../helpers/temp-dirs.js"
import { PRUNED, prunedSessionExport } from "../transcript/pruned-export.js"
import { SYNTHETIC, syntheticSessionJsonl } from "./synthetic-session.js"

/** One token per word: 8,000 tokens fold the synthetic session's early episode long before its last call. */
const WINDOW = 8_000
const POLICIES = ["default", "flat", "truncation"] as const

const dirs = createTempDirs()
let folder: string

/** Probes over the synthetic session, parsed the way a probe file is. */
function probesOf(entries: readonly Record<string, unknown>[]): Probe[] {
  const parsed = parseProbeFile(JSON.stringify(entries), join(folder, "probes.json"))
  if (!parsed.ok) throw new Error(parsed.error)
  return parsed.value
}

const early = (id: string, kind: string, t: number, exact: string, need: number | null = SYNTHETIC.needTurn) => ({
  id,
  trace: "session.jsonl",
  kind,
  t,
  need,
  exact,
})

beforeAll(() => {
  folder = dirs.make("lab")
  writeFileSync(join(folder, "session.jsonl"), syntheticSessionJsonl())
})

afterAll(() => {
  dirs.cleanup()
})

describe("evaluateProbes", () => {
  describe("on a synthetic session whose early facts are needed at its last call", () => {
    let evaluation: ProbeEvaluation
    let probes: Probe[]

    beforeAll(async () => {
      probes = probesOf([
        early("constraint", "constraint", SYNTHETIC.constraintTurn, SYNTHETIC.constraint),
        early("path", "identifier", SYNTHETIC.readTurn, SYNTHETIC.path),
        early("decision", "decision_rationale", SYNTHETIC.decisionTurn, SYNTHETIC.decision),
        early("checksum", "incidental", SYNTHETIC.outputTurn, SYNTHETIC.incidental),
        early("never-needed", "incidental", SYNTHETIC.outputTurn, SYNTHETIC.incidental, null),
      ])
      evaluation = await evaluateProbes({ probes, policies: POLICIES, windows: [WINDOW], counter: wordCounter })
    })

    const survived = (probeId: string, policy: LabPolicy): boolean | null | undefined =>
      evaluation.verdicts.find((verdict) => verdict.probeId === probeId && verdict.policy === policy)?.survived

    it("finds every probe valid: its fact is in record t and the unreduced prompt carries it", () => {
      expect(evaluation.validity.every((entry) => entry.valid)).toBe(true)
    })

    it("checks each needed probe at the last model call, under every policy", () => {
      const checked = evaluation.verdicts.filter((verdict) => verdict.probeId !== "never-needed")
      expect(checked).toHaveLength(4 * 4)
      expect(checked.every((verdict) => verdict.needTurn === SYNTHETIC.needTurn)).toBe(true)
      const neverNeeded = evaluation.verdicts.filter((verdict) => verdict.probeId === "never-needed")
      expect(neverNeeded.map((verdict) => verdict.survived)).toEqual([null, null, null, null])
    })

    // full keeps everything. The early episode is folded into compartment c1 at the second execute pass:
    // - the user's constraint is pinned, so the pinned ledger carries it under every policy;
    // - default demotes c1 to compact (its floor): identifiers and decisions with their reason stay;
    // - flat renders every compartment at the one level that fits the budget (compact here): the same facts stay;
    // - truncation omits the oldest compartments that do not fit, c1 among them;
    // - no tier carries a line of a tool's output, so the incidental checksum goes under every reduced policy.
    it.each([
      ["constraint", { full: true, default: true, flat: true, truncation: true }],
      ["path", { full: true, default: true, flat: true, truncation: false }],
      ["decision", { full: true, default: true, flat: true, truncation: false }],
      ["checksum", { full: true, default: false, flat: false, truncation: false }],
    ])("decides whether %s survives per policy", (probeId, expected) => {
      const outcome = Object.fromEntries(["full" as const, ...POLICIES].map((policy) => [policy, survived(probeId, policy)]))
      expect(outcome).toEqual(expected)
    })

    it("summarizes per policy and window, full (in its unreduced window) first", () => {
      expect(evaluation.summaries.map((summary) => [summary.policy, summary.window])).toEqual([
        ["full", UNREDUCED_WINDOW_TOKENS],
        ["default", WINDOW],
        ["flat", WINDOW],
        ["truncation", WINDOW],
      ])
      const rates = Object.fromEntries(evaluation.summaries.map((summary) => [summary.policy, summary.survival]))
      expect(rates).toEqual({
        full: { probes: 3, survived: 3, rate: 1 },
        default: { probes: 3, survived: 3, rate: 1 },
        flat: { probes: 3, survived: 3, rate: 1 },
        truncation: { probes: 3, survived: 1, rate: 1 / 3 },
      })
      const defaults = evaluation.summaries.find((summary) => summary.policy === "default")
      expect(defaults?.byKind.incidental).toEqual({ probes: 1, survived: 0, rate: 0 })
    })

    it("reports smaller prompts than full, and floor violations only where floors were broken", () => {
      const byPolicy = new Map(evaluation.summaries.map((summary) => [summary.policy, summary]))
      const full = byPolicy.get("full")
      expect(full).toMatchObject({ turns: 23, floorViolations: 0, prefixChanges: 0, tierSwitches: 0, executePasses: 0 })
      for (const policy of POLICIES) {
        const summary = byPolicy.get(policy)
        expect(summary?.turns).toBe(23)
        expect(summary?.maxPromptTokens).toBeLessThanOrEqual(WINDOW)
        expect(summary?.meanPromptTokens).toBeLessThan(full?.meanPromptTokens ?? 0)
        expect(summary?.executePasses).toBeGreaterThan(0)
        expect(summary?.prefixChanges).toBeGreaterThan(0)
      }
      expect(byPolicy.get("default")?.floorViolations).toBe(0)
      expect(byPolicy.get("flat")?.floorViolations).toBe(0)
      expect(byPolicy.get("truncation")?.floorViolations).toBeGreaterThan(0)
    })

    it("gives one run record per transcript, policy and window", () => {
      expect(evaluation.runs.map((run) => [run.policy, run.window])).toEqual([
        ["full", UNREDUCED_WINDOW_TOKENS],
        ["default", WINDOW],
        ["flat", WINDOW],
        ["truncation", WINDOW],
      ])
    })

    it("returns the same evaluation when run again", async () => {
      const again = await evaluateProbes({ probes, policies: POLICIES, windows: [WINDOW], counter: wordCounter })
      expect(again).toEqual(evaluation)
    })
  })

  describe("on probes that do not fit their source", () => {
    it("reports them invalid with every problem and gives them no verdicts", async () => {
      const probes = probesOf([
        early("ok", "identifier", SYNTHETIC.readTurn, SYNTHETIC.path),
        early("wrong-record", "identifier", SYNTHETIC.outputTurn, SYNTHETIC.path),
        early("seen-earlier", "constraint", SYNTHETIC.decisionTurn, "Never edit"),
        early("not-a-turn", "identifier", 0, SYNTHETIC.path),
        early("need-after-end", "identifier", SYNTHETIC.readTurn, SYNTHETIC.path, SYNTHETIC.needTurn + 5),
        { ...early("missing-trace", "identifier", 1, "x"), trace: "absent.jsonl" },
      ])
      const evaluation = await evaluateProbes({ probes, policies: ["default"], windows: [WINDOW], counter: wordCounter })
      expect(evaluation.validity).toEqual([
        { probeId: "ok", valid: true, problems: [] },
        {
          probeId: "wrong-record",
          valid: false,
          problems: ["exact: not in record 3", "t: exact already appears in record 2, before t (3)"],
        },
        {
          probeId: "seen-earlier",
          valid: false,
          problems: ["exact: not in record 4", "t: exact already appears in record 1, before t (4)"],
        },
        {
          probeId: "not-a-turn",
          valid: false,
          problems: ["t: record 0 is not a turn of session.jsonl (out of range, or a record the importer skips)"],
        },
        {
          probeId: "need-after-end",
          valid: false,
          problems: [`need: no model call at or after record ${SYNTHETIC.needTurn + 5}`],
        },
        {
          probeId: "missing-trace",
          valid: false,
          problems: [expect.stringMatching(/^trace: .*absent\.jsonl: cannot read the transcript: no such file$/)],
        },
      ])
      expect(new Set(evaluation.verdicts.map((verdict) => verdict.probeId))).toEqual(new Set(["ok"]))
    })
  })

  describe("on an OpenCode export whose host pruned a tool output", () => {
    it("shows the output in prompts before the pruning and OpenCode's marker after it, also under full", async () => {
      writeFileSync(join(folder, "pruned.json"), prunedSessionExport())
      const at = (id: string, need: number) => ({ id, trace: "pruned.json", kind: "bug_status", t: PRUNED.message, need, exact: PRUNED.exact })
      // Message 8 reruns the test in the same loop; message 12 comes after the next user message, once pruned.
      const probes = probesOf([at("before-pruning", 8), at("after-pruning", 12)])
      const evaluation = await evaluateProbes({ probes, policies: [], windows: [], counter: wordCounter })
      expect(evaluation.validity).toEqual([
        { probeId: "before-pruning", valid: true, problems: [] },
        {
          probeId: "after-pruning",
          valid: false,
          problems: ["exact: not in the unreduced prompt of the model call at record 12 (policy full)"],
        },
      ])
    })
  })

  describe("with recognizers", () => {
    it("replays with the rules it is given: the planner asks them, and the runs carry survival and cost", async () => {
      const asked = new Set<string>()
      const probes = probesOf([early("path", "identifier", SYNTHETIC.readTurn, SYNTHETIC.path)])
      const evaluation = await evaluateProbes({
        probes,
        policies: ["default"],
        windows: [WINDOW],
        counter: wordCounter,
        recognizers: {
          on: (name) => {
            asked.add(name)
            return true
          },
        },
      })
      expect(asked.size).toBeGreaterThan(0)
      expect(evaluation.runs.map((run) => [run.traceName, run.policy, run.survival.probes])).toEqual([
        ["session.jsonl", "full", 1],
        ["session.jsonl", "default", 1],
      ])
      for (const run of evaluation.runs) {
        expect(run.cost.calls).toBe(run.metrics.turns)
        expect(run.cost.promptTokens).toBe(run.metrics.promptTokens)
        expect(run.cost.cachedTokens).toBeGreaterThan(0)
        expect(run.cost.costTokens).toBeLessThan(run.cost.promptTokens)
      }
    })
  })
})
