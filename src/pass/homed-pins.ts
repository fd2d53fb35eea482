import type { PinnedFact } from "../historian/pinned-ledger.js"
import type { StoredCompartment } from "../store/compartment-repository.js"

/** A pin with the compartment that holds it (where the full ledger condenses it). */
export type HomedPin = PinnedFact & { compartmentId: string }

/** What homing reads of a compartment: its id, where its messages end, its facts (which never change). */
type PinnedCompartment = Pick<StoredCompartment, "id" | "lastMessageSeq" | "facts">

/** An agent's pin (ctx_pin) with the sequence number of the message it pins. */
export type AgentPin = { pin: PinnedFact; seq: number }

/**
 * Every pin, oldest first: per compartment, its pinned facts (each text once, where it first occurs), then the agent's
 * pins of its messages (homed in the first compartment that ends at or after their message, the last one for a later
 * message).
 */
export type PinHoming = (compartments: readonly PinnedCompartment[], agent: readonly AgentPin[]) => readonly HomedPin[]

/**
 * `PinHoming` that keeps the facts' pins of the compartments it saw: compartments are appended as the session is cut
 * and their facts never change (a fold copies a compartment, not its facts), so a pass reads only the new ones'. A
 * list that differs from the last one before its end (a reload, a model historian's tiers) is read again whole.
 */
export function createPinHoming(): PinHoming {
  let seenFacts: (readonly unknown[])[] = []
  let ids: string[] = []
  let seen = new Set<string>()
  let perCompartment: HomedPin[][] = []
  let flat: HomedPin[] = []
  return (compartments, agent) => {
    const kept = Math.min(seenFacts.length, compartments.length)
    let same = 0
    while (same < kept && seenFacts[same] === compartments[same]?.facts && ids[same] === compartments[same]?.id) same += 1
    if (same < seenFacts.length) {
      seenFacts = []
      ids = []
      seen = new Set()
      perCompartment = []
      flat = []
    }
    for (let index = seenFacts.length; index < compartments.length; index += 1) {
      const compartment = compartments[index] as PinnedCompartment
      const pins: HomedPin[] = []
      for (const fact of compartment.facts) {
        if (fact.retention !== "PIN" || seen.has(fact.text)) continue
        seen.add(fact.text)
        pins.push({ text: fact.text, tags: fact.source.tags, binding: fact.kind === "constraint", compartmentId: compartment.id })
      }
      seenFacts.push(compartment.facts)
      ids.push(compartment.id)
      perCompartment.push(pins)
      flat.push(...pins)
    }
    if (agent.length === 0) return flat.slice()
    const agentAt = new Map<number, HomedPin[]>()
    for (const { pin, seq } of agent) {
      const found = compartments.findIndex((compartment) => compartment.lastMessageSeq >= seq)
      const home = found === -1 ? compartments.length - 1 : found
      if (home < 0) continue
      const compartment = compartments[home] as PinnedCompartment
      const homed = agentAt.get(home) ?? []
      homed.push({ ...pin, compartmentId: compartment.id })
      agentAt.set(home, homed)
    }
    const result: HomedPin[] = []
    perCompartment.forEach((pins, index) => result.push(...pins, ...(agentAt.get(index) ?? [])))
    return result
  }
}
