import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { evaluateProbes } from "../../src/lab/evaluate-probes.js"
import { PROBE_KINDS, type Probe } from "../../src/lab/probe-file.js"
import { probeAtTurns, recordTurns } from "../../src/lab/probe-turns.js"
import { recordTexts } from "../../src/lab/record-text.js"
import { createTokenCounterPool, type TokenCounterPool } from "../../src/tokens/tiktoken-counter.js"
import { readTranscript } from "../../src/transcript/read-transcript.js"
import { realTraceProbes } from "./real-trace-probes.js"

const probes = realTraceProbes()
const recordsByTrace = new Map<string, { texts: Map<number, string>; turns: Map<number, number> }>()
const recordsOf = (probe: Probe): { texts: Map<number, string>; turns: Map<number, number> } => {
  const known = recordsByTrace.get(probe.tracePath)
  if (known) return known
  const transcript = readTranscript(probe.tracePath)
  const records = { texts: recordTexts(transcript), turns: recordTurns(transcript) }
  recordsByTrace.set(probe.tracePath, records)
  return records
}

describe("fixtures/probes/real-traces.json", () => {
  it("pins its probes: 59 over the four real traces, every kind on each of them", () => {
    const traces = [...new Set(probes.map((probe) => probe.trace))]
    const count = (filter: (probe: Probe) => boolean): number => probes.filter(filter).length
    expect(probes).toHaveLength(59)
    expect(Object.fromEntries(traces.map((trace) => [trace, count((probe) => probe.trace === trace)]))).toEqual({
      "../traces/raw/pi-sonnet45-large-session.jsonl": 17,
      "../traces/raw/claudecode-opus46-spotter-gqc.jsonl": 17,
      "../traces/raw/openhands-llama4-ponyc.jsonl#2": 13,
      "../traces/raw/sweagent-gpt4-pydicom-1458.traj": 12,
    })
    for (const kind of PROBE_KINDS) {
      const traces = new Set(probes.filter((probe) => probe.kind === kind).map((probe) => probe.trace))
      expect(traces.size, kind).toBe(4)
    }
  })

  it.each(probes.map((probe) => [probe.id, probe] as const))(
    "%s: exact is verbatim in the turn holding record t of its trace",
    (_, probe) => {
      const { texts, turns } = recordsOf(probe)
      expect(texts.get(probeAtTurns(probe, turns).t)).toContain(probe.exact)
    },
  )

  describe("against the unreduced replay", () => {
    let pool: TokenCounterPool

    beforeAll(() => {
      pool = createTokenCounterPool()
    })

    afterAll(() => {
      pool.dispose()
    })

    it("finds every probe valid: exact first appears at t and survives under full at need", async () => {
      const counter = pool.counterFor("o200k_base")
      const evaluation = await evaluateProbes({ probes, policies: [], windows: [], counter })
      expect(evaluation.validity.filter((entry) => !entry.valid)).toEqual([])
      const needed = probes.filter((probe) => probe.need !== null).length
      expect(evaluation.verdicts.filter((verdict) => verdict.survived === true)).toHaveLength(needed)
    }, 120_000)
  })
})
