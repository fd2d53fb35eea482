import type { Probe } from "./probe-file.js"

/**
 * What is wrong with a probe against its source records (`recordTexts` of its transcript): `exact` must be in record
 * `t`, and in no record before it (t is where it first appears). Empty when the probe fits its source.
 */
export function checkProbeSource(probe: Probe, records: ReadonlyMap<number, string>): string[] {
  const atT = records.get(probe.t)
  if (atT === undefined) {
    return [`t: record ${probe.t} is not a turn of ${probe.trace} (out of range, or a record the importer skips)`]
  }
  const problems = atT.includes(probe.exact) ? [] : [`exact: not in record ${probe.t}`]
  for (const [index, text] of records) {
    if (index >= probe.t) break
    if (!text.includes(probe.exact)) continue
    return [...problems, `t: exact already appears in record ${index}, before t (${probe.t})`]
  }
  return problems
}
