import { describe, expect, it } from "vitest"
import { parseProbeFile } from "../../src/lab/probe-file.js"

const FILE = "/lab/probes/set.json"

const probe = (overrides: Record<string, unknown> = {}): Record<string, unknown> => ({
  id: "p1",
  trace: "../traces/session.jsonl",
  kind: "constraint",
  t: 3,
  need: 9,
  exact: "never push to main",
  ...overrides,
})

/** The error of a parse that must fail. */
const errorOf = (text: string): string => {
  const result = parseProbeFile(text, FILE)
  if (result.ok) throw new Error("expected the probe file to be rejected")
  return result.error
}

describe("parseProbeFile", () => {
  it("reads probes and resolves each trace against the probe file's folder, keeping #N", () => {
    const result = parseProbeFile(
      JSON.stringify([probe(), probe({ id: "p2", trace: "../traces/multi.jsonl#2", kind: "incidental", need: null })]),
      FILE,
    )
    expect(result).toEqual({
      ok: true,
      value: [
        { ...probe(), tracePath: "/lab/traces/session.jsonl" },
        {
          ...probe({ id: "p2", trace: "../traces/multi.jsonl#2", kind: "incidental", need: null }),
          tracePath: "/lab/traces/multi.jsonl#2",
        },
      ],
    })
  })

  it("accepts exact strings with quotes and newlines verbatim", () => {
    const exact = 'say "hi"\n\tthen leave'
    const result = parseProbeFile(JSON.stringify([probe({ exact })]), FILE)
    expect(result.ok && result.value[0]?.exact).toBe(exact)
  })

  it("names the file and the JSON problem when the text is not JSON", () => {
    expect(errorOf("[{")).toMatch(/^\/lab\/probes\/set\.json: not valid JSON: /)
  })

  it.each([
    ["an object", "{}", "expected a JSON array of probes, got an object"],
    ["a string", '"probes"', "expected a JSON array of probes, got a string"],
    ["null", "null", "expected a JSON array of probes, got null"],
  ])("rejects %s instead of an array", (_, text, message) => {
    expect(errorOf(text)).toBe(`${FILE}: ${message}`)
  })

  it.each([
    ["a missing id", { id: undefined }, 'probe #0: id: expected a non-empty string, it is missing'],
    ["a blank id", { id: "  " }, 'probe #0 (id "  "): id: expected a non-empty string, got "  "'],
    ["a numeric trace", { trace: 7 }, 'probe #0 (id "p1"): trace: expected a transcript path relative to the probe file, optionally with "#N" (a non-empty string), got 7'],
    ["an unknown kind", { kind: "fact" }, 'probe #0 (id "p1"): kind: expected one of constraint, identifier, decision_rationale, rejected_alternative, bug_status, location, incidental, got "fact"'],
    ["a negative t", { t: -1 }, 'probe #0 (id "p1"): t: expected a record index (an integer >= 0), got -1'],
    ["a fractional t", { t: 2.5 }, 'probe #0 (id "p1"): t: expected a record index (an integer >= 0), got 2.5'],
    ["a string need", { need: "12" }, 'probe #0 (id "p1"): need: expected a record index (an integer >= 0), or null for an incidental probe, got "12"'],
    ["a null need on a constraint", { need: null }, 'probe #0 (id "p1"): need: expected a record index; null is allowed only for kind incidental (this is constraint)'],
    ["a need before t", { need: 2 }, 'probe #0 (id "p1"): need: expected a record after t (3), got 2'],
    ["a need at t", { need: 3 }, 'probe #0 (id "p1"): need: expected a record after t (3), got 3'],
    ["an empty exact", { exact: "" }, 'probe #0 (id "p1"): exact: expected a non-empty verbatim string (not only whitespace), got ""'],
    ["a whitespace exact", { exact: " \n" }, 'probe #0 (id "p1"): exact: expected a non-empty verbatim string (not only whitespace), got " \\n"'],
    ["an unknown field", { neeed: 4 }, 'probe #0 (id "p1"): unknown field "neeed"; expected only id, trace, kind, t, need, exact'],
  ])("rejects %s, naming the file, the probe, the field and what was expected", (_, overrides, message) => {
    expect(errorOf(JSON.stringify([probe(overrides)]))).toBe(`${FILE}: ${message}`)
  })

  it("rejects an entry that is not an object", () => {
    expect(errorOf(JSON.stringify([probe(), "p2"]))).toBe(
      `${FILE}: probe #1: expected an object with id, trace, kind, t, need, exact, got a string`,
    )
  })

  it("rejects a duplicate id, naming the probe that has it first", () => {
    expect(errorOf(JSON.stringify([probe(), probe({ id: "p2" }), probe({ exact: "other" })]))).toBe(
      `${FILE}: probe #2 (id "p1"): id: expected a unique id, but probe #0 has it too`,
    )
  })

  it("reports every problem of every probe, one per line", () => {
    const text = JSON.stringify([probe({ kind: "fact", t: -1 }), probe({ id: "p2" }), probe({ id: "p3", exact: "" })])
    const lines = errorOf(text).split("\n")
    expect(lines).toEqual([
      `${FILE}: probe #0 (id "p1"): kind: expected one of constraint, identifier, decision_rationale, rejected_alternative, bug_status, location, incidental, got "fact"`,
      `${FILE}: probe #0 (id "p1"): t: expected a record index (an integer >= 0), got -1`,
      `${FILE}: probe #2 (id "p3"): exact: expected a non-empty verbatim string (not only whitespace), got ""`,
    ])
  })
})
