import type { HostMessage } from "../transcript/host-message.js"
import type { Probe } from "./probe-file.js"
import { promptText } from "./prompt-text.js"

/** Where one probe was checked in one replay, and whether its `exact` was in the prompt there. */
export type ProbeObservation = { probeId: string; needTurn: number | null; survived: boolean | null }

/** Watches the model calls of one replay and checks each probe at its model call. */
export type ProbeTracker = {
  /** One model call, in order: `turn` is its source record index, `prompt` what it sends. */
  observe(call: { turn: number; prompt: readonly HostMessage[] }): void
  /** One observation per probe, in the order given; probes not reached yet have `needTurn` null. */
  observations(): ProbeObservation[]
}

/**
 * Creates a tracker for probes of one transcript. A probe is checked at the first model call whose turn is at or after
 * its `need`: the prompt built from every record before that call. The prompt's text is built only for calls some
 * probe is checked at, once per call.
 */
export function createProbeTracker(probes: readonly Probe[]): ProbeTracker {
  const results = new Map<string, ProbeObservation>()
  const waiting = probes
    .filter((probe) => probe.need !== null)
    .sort((left, right) => (left.need ?? 0) - (right.need ?? 0))
  let next = 0
  return {
    observe(call) {
      let text: string | null = null
      while (next < waiting.length) {
        const probe = waiting[next] as Probe
        if ((probe.need ?? 0) > call.turn) break
        text ??= promptText(call.prompt)
        results.set(probe.id, { probeId: probe.id, needTurn: call.turn, survived: text.includes(probe.exact) })
        next += 1
      }
    },
    observations() {
      return probes.map((probe) => results.get(probe.id) ?? { probeId: probe.id, needTurn: null, survived: null })
    },
  }
}
