import type { Transcript } from "../transcript/turn-model.js"
import type { Probe } from "./probe-file.js"

/** The turn that holds each source record of a transcript: every turn's own index and its `mergedRecords`. */
export function recordTurns(transcript: Transcript): Map<number, number> {
  const turns = new Map<number, number>()
  for (const turn of transcript.turns) {
    turns.set(turn.index, turn.index)
    for (const record of turn.mergedRecords ?? []) turns.set(record, turn.index)
  }
  return turns
}

/**
 * A probe with `t` and `need` moved to the turns that hold those records. A probe names source records, but a format
 * may split one thing the model saw over several records (Claude Code writes each block of a response as its own
 * record; the importer merges them into the turn of the first). A record no turn holds (one the importer skips)
 * keeps its number: `t` is then reported as not a turn, and `need` still means the first model call after it.
 */
export function probeAtTurns(probe: Probe, turns: ReadonlyMap<number, number>): Probe {
  const t = turns.get(probe.t) ?? probe.t
  const need = probe.need === null ? null : (turns.get(probe.need) ?? probe.need)
  if (t === probe.t && need === probe.need) return probe
  return { ...probe, t, need }
}
