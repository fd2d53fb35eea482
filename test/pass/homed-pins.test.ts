import fc from "fast-check"
import { describe, expect, it } from "vitest"
import type { Fact } from "../../src/historian/fidelity-types.js"
import { createPinHoming, type AgentPin, type HomedPin } from "../../src/pass/homed-pins.js"
import type { StoredCompartment } from "../../src/store/compartment-repository.js"

/** The definition, read whole every time: each compartment's first-seen pinned facts, then the agent's pins homed there. */
function reference(compartments: readonly StoredCompartment[], agent: readonly AgentPin[]): HomedPin[] {
  const seen = new Set<string>()
  const pins: HomedPin[] = []
  const homes = agent.map(({ seq }) => compartments.find((compartment) => compartment.lastMessageSeq >= seq) ?? compartments[compartments.length - 1])
  for (const compartment of compartments) {
    for (const fact of compartment.facts) {
      if (fact.retention !== "PIN" || seen.has(fact.text)) continue
      seen.add(fact.text)
      pins.push({ text: fact.text, tags: fact.source.tags, binding: fact.kind === "constraint", compartmentId: compartment.id })
    }
    agent.forEach(({ pin }, index) => {
      if (homes[index] === compartment) pins.push({ ...pin, compartmentId: compartment.id })
    })
  }
  return pins
}

const fact = (text: string, retention: Fact["retention"], tag: number): Fact => ({
  kind: "constraint",
  text,
  retention,
  floor: "exact",
  source: { tags: [tag], messageIds: [`m${tag}`] },
})

function compartment(seq: number, facts: Fact[]): StoredCompartment {
  return {
    id: `session:c${seq}`,
    sessionId: "session",
    seq,
    firstMessageSeq: seq * 10 - 9,
    lastMessageSeq: seq * 10,
    firstTag: seq,
    lastTag: seq,
    outcome: null,
    sourceTokens: 100,
    status: "closed",
    representations: [],
    facts,
  }
}

describe("createPinHoming", () => {
  it("homes the facts' pins once each and the agent's pins in the compartment of their message", () => {
    const home = createPinHoming()
    const first = compartment(1, [fact("Never push to main.", "PIN", 1), fact("ran npm test", "COMPRESSIBLE", 2)])
    const second = compartment(2, [fact("Never push to main.", "PIN", 3), fact("API key lives in .env.local", "PIN", 4)])
    const agent: AgentPin[] = [{ pin: { text: "keep the v2 schema", tags: [9] }, seq: 5 }, { pin: { text: "late", tags: [12] }, seq: 99 }]
    expect(home([first, second], agent).map((pin) => [pin.compartmentId, pin.text])).toEqual([
      ["session:c1", "Never push to main."],
      ["session:c1", "keep the v2 schema"],
      ["session:c2", "API key lives in .env.local"],
      ["session:c2", "late"],
    ])
    expect(home([], agent)).toEqual([])
  })

  it("equals the definition over any sequence of passes: appended, folded, reloaded or replaced compartments", () => {
    const facts = fc.array(
      fc.tuple(fc.constantFrom("pin a", "pin b", "pin c", "note d"), fc.constantFrom<Fact["retention"]>("PIN", "COMPRESSIBLE"), fc.nat(50)),
      { maxLength: 4 },
    )
    // Each step: append compartments, fold some (a copy sharing the facts), reload all (new facts arrays of the same
    // content), or replace one in the middle; then home the list with some agent pins.
    const step = fc.tuple(
      fc.constantFrom("append", "fold", "reload", "replace"),
      fc.array(facts, { minLength: 1, maxLength: 3 }),
      fc.nat(),
      fc.array(fc.tuple(fc.constantFrom("agent x", "agent y"), fc.nat(80)), { maxLength: 3 }),
    )
    fc.assert(
      fc.property(fc.array(step, { minLength: 1, maxLength: 12 }), (steps) => {
        const home = createPinHoming()
        let list: StoredCompartment[] = []
        for (const [kind, added, at, agentPins] of steps) {
          const made = (seq: number, entries: typeof added[number]): StoredCompartment =>
            compartment(seq, entries.map(([text, retention, tag]) => fact(text, retention, tag)))
          if (kind === "append" || list.length === 0) list = [...list, ...added.map((entries, index) => made(list.length + index + 1, entries))]
          else if (kind === "fold") list = list.map((item, index) => (index <= at % list.length ? { ...item, status: "folded" as const } : item))
          else if (kind === "reload") list = list.map((item) => ({ ...item, facts: item.facts.map((entry) => ({ ...entry })) }))
          else {
            const index = at % list.length
            list = list.map((item, position) => (position === index ? made(item.seq, added[0] ?? []) : item))
          }
          const agent = agentPins.map(([text, seq]) => ({ pin: { text, tags: [seq] }, seq }))
          expect(home(list, agent)).toEqual(reference(list, agent))
        }
      }),
      { numRuns: 300 },
    )
  })
})
