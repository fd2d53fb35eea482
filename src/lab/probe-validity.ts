import { checkProbeSource } from "./check-probe-source.js"
import type { Probe } from "./probe-file.js"
import { probeAtTurns } from "./probe-turns.js"
import type { ProbeObservation } from "./track-probes.js"

/** Whether a probe is a sound test: its fact is in its source where it says, and the unreduced prompt carries it. */
export type ProbeValidity = { probeId: string; valid: boolean; problems: string[] }

/**
 * Judges a probe against its source records (`recordTexts`, by turn) and its observation in the `full` replay: `exact`
 * must first appear in the turn that holds record `t` (see `checkProbeSource`, `probeAtTurns`), and a probe with a
 * `need` must be checked at a model call whose unreduced prompt carries it. An invalid probe is a fixture bug, not a
 * policy result.
 */
export function probeValidity(options: {
  probe: Probe
  records: ReadonlyMap<number, string>
  /** The turn holding each source record (`recordTurns`). */
  turns: ReadonlyMap<number, number>
  full: ProbeObservation | undefined
}): ProbeValidity {
  const { probe, full } = options
  const atTurns = probeAtTurns(probe, options.turns)
  const problems = checkProbeSource(atTurns, options.records).map((problem) =>
    atTurns.t === probe.t ? problem : `${problem} (t ${probe.t} is a later record of turn ${atTurns.t})`,
  )
  if (probe.need !== null && (full === undefined || full.needTurn === null)) {
    problems.push(`need: no model call at or after record ${probe.need}`)
  } else if (probe.need !== null && full?.survived === false) {
    problems.push(`exact: not in the unreduced prompt of the model call at record ${full.needTurn} (policy full)`)
  }
  return { probeId: probe.id, valid: problems.length === 0, problems }
}
