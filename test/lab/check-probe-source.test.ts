import { describe, expect, it } from "vitest"
import { checkProbeSource } from "../../src/lab/check-probe-source.js"
import type { Probe } from "../../src/lab/probe-file.js"

const records = new Map([
  [1, "please keep port 1100"],
  [2, "reading the config"],
  [4, "the port is 1100, set in config/dev.exs:13"],
])

const probe = (overrides: Partial<Probe>): Probe => ({
  id: "p",
  trace: "session.jsonl",
  tracePath: "/x/session.jsonl",
  kind: "identifier",
  t: 4,
  need: 9,
  exact: "config/dev.exs:13",
  ...overrides,
})

describe("checkProbeSource", () => {
  it("accepts a probe whose exact first appears in record t", () => {
    expect(checkProbeSource(probe({}), records)).toEqual([])
  })

  it.each([
    ["t is not a record", { t: 3 }, ["t: record 3 is not a turn of session.jsonl (out of range, or a record the importer skips)"]],
    ["exact is not in record t", { t: 2 }, ["exact: not in record 2"]],
    ["exact appears before t", { exact: "1100" }, ["t: exact already appears in record 1, before t (4)"]],
    ["both", { t: 2, exact: "1100" }, ["exact: not in record 2", "t: exact already appears in record 1, before t (2)"]],
  ])("reports when %s", (_, overrides, problems) => {
    expect(checkProbeSource(probe(overrides), records)).toEqual(problems)
  })
})
