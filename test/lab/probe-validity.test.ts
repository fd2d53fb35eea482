import { describe, expect, it } from "vitest"
import type { Probe } from "../../src/lab/probe-file.js"
import { probeValidity } from "../../src/lab/probe-validity.js"

const records = new Map([
  [1, "keep port 1100"],
  [2, "ok"],
])
const turns = new Map([
  [1, 1],
  [2, 2],
])

const probe = (overrides: Partial<Probe> = {}): Probe => ({
  id: "p",
  trace: "s.jsonl",
  tracePath: "/s.jsonl",
  kind: "identifier",
  t: 1,
  need: 2,
  exact: "port 1100",
  ...overrides,
})

describe("probeValidity", () => {
  it("accepts a probe in its record whose unreduced prompt at need carries it", () => {
    expect(probeValidity({ probe: probe(), records, turns, full: { probeId: "p", needTurn: 2, survived: true } })).toEqual({
      probeId: "p",
      valid: true,
      problems: [],
    })
  })

  it("accepts a never-needed probe without a check in the replay", () => {
    const full = { probeId: "p", needTurn: null, survived: null }
    expect(probeValidity({ probe: probe({ kind: "incidental", need: null }), records, turns, full }).valid).toBe(true)
  })

  it.each([
    ["no model call comes at or after need", { probeId: "p", needTurn: null, survived: null }, "need: no model call at or after record 2"],
    ["the replay never saw it", undefined, "need: no model call at or after record 2"],
    [
      "the unreduced prompt lacks it",
      { probeId: "p", needTurn: 2, survived: false },
      "exact: not in the unreduced prompt of the model call at record 2 (policy full)",
    ],
  ])("rejects a probe when %s", (_, full, problem) => {
    const result = probeValidity({ probe: probe(), records, turns, full })
    expect(result).toEqual({ probeId: "p", valid: false, problems: [problem] })
  })

  it("adds the source problems first", () => {
    const full = { probeId: "p", needTurn: null, survived: null }
    const result = probeValidity({ probe: probe({ t: 2 }), records, turns, full })
    expect(result.problems).toEqual([
      "exact: not in record 2",
      "t: exact already appears in record 1, before t (2)",
      "need: no model call at or after record 2",
    ])
  })

  it("judges a t that is a later record of a merged turn against that turn", () => {
    // Records 1 and 3 are one model response (Claude Code writes each block as a record); record 2 is its tool result.
    const merged = { records, turns: new Map([[1, 1], [2, 2], [3, 1]]) }
    const full = { probeId: "p", needTurn: 2, survived: true }
    expect(probeValidity({ probe: probe({ t: 3 }), ...merged, full })).toEqual({ probeId: "p", valid: true, problems: [] })
    expect(probeValidity({ probe: probe({ t: 3, exact: "ok" }), ...merged, full }).problems).toEqual([
      "exact: not in record 1 (t 3 is a later record of turn 1)",
    ])
  })
})
