import { describe, expect, it } from "vitest"
import { composeHistory, type RenderedCompartment } from "../../src/historian/compose-history.js"
import type { PinnedFact } from "../../src/historian/pinned-ledger.js"
import type { Tier } from "../../src/historian/fidelity-types.js"
import type { WorkingSet } from "../../src/historian/working-set.js"
import { measureHistory, type MeasuredCompartment } from "../../src/status/measure-history.js"

const WORKING_SET: WorkingSet = {
  objective: "make the slugify tests pass",
  filesModified: ["src/slugify.js"],
  earlierFilesModified: 0,
  openTodos: [],
  lastFailure: null,
}

/** A canonical representation of `tier` with the given content and stored count. */
const representation = (tier: Tier, content: string, tokens: number) => ({ tier, strategy: "canonical-record", content, tokens })

/** Three compartments with every tier; c1 and c2 rendered compact, c3 full. */
const COMPARTMENTS: MeasuredCompartment[] = [
  {
    tier: "compact",
    representations: [
      representation("full", "[c1 §1§–§4§] full text of c1", 300),
      representation("compact", "[c1 §1§–§4§] compact text of c1", 60),
      representation("anchor", "[c1 §1§–§4§] anchor", 8),
    ],
    pinnedFacts: [{ text: "Never change the public API of src/slugify.js", tags: [1] }],
  },
  {
    tier: "compact",
    representations: [
      representation("full", "[c2 §5§–§8§] full text of c2", 250),
      representation("compact", "[c2 §5§–§8§] compact text of c2", 40),
    ],
    // The same constraint again: the ledger carries it once, with the first compartment's tag.
    pinnedFacts: [{ text: "Never change the public API of src/slugify.js", tags: [5] }],
  },
  {
    tier: "full",
    representations: [
      representation("full", "[c3 §9§–§12§] full text of c3", 500),
      representation("compact", "[c3 §9§–§12§] compact text of c3", 90),
    ],
    pinnedFacts: [{ text: "Use Node 20 only.\nNo new dependencies.", tags: [9, 10] }],
  },
]

const PINS: PinnedFact[] = [
  { text: "Never change the public API of src/slugify.js", tags: [1] },
  { text: "Use Node 20 only.\nNo new dependencies.", tags: [9, 10] },
  { text: "the build runs with --strict", tags: [11] },
]

/** The history composeHistory writes for the compartments at their tiers (`omit` leaves some out). */
function history(options: { pins?: PinnedFact[]; omit?: number[] } = {}): string {
  const rendered: RenderedCompartment[] = COMPARTMENTS.flatMap((compartment, index) => {
    if (options.omit?.includes(index)) return []
    const chosen = compartment.representations.find((candidate) => candidate.tier === compartment.tier)
    return chosen ? [{ id: `s#c${index + 1}`, tier: chosen.tier, text: chosen.content }] : []
  })
  return composeHistory({
    workingSet: WORKING_SET,
    pins: options.pins ?? PINS,
    compartments: rendered,
  })
}

/** The ledger section as composeHistory writes it (heading through the last entry). */
function ledgerOf(text: string): string {
  const start = text.indexOf("\n\n## Pinned")
  const end = text.indexOf("\n\n## Working set")
  return text.slice(start, end < 0 ? text.lastIndexOf("\n</session-history>") : end)
}

describe("measureHistory", () => {
  it("splits a composed history into the pinned ledger and the compartments by tier", () => {
    const text = history()
    const ledger = ledgerOf(text)
    const compartmentChars = ["[c1 §1§–§4§] compact text of c1", "[c2 §5§–§8§] compact text of c2", "[c3 §9§–§12§] full text of c3"]
      .map((content) => content.length)
      .reduce((sum, length) => sum + length, 0)
    // What the compartments leave of the 1,000 tokens (1,000 - 60 - 40 - 500 = 400) is shared by characters: the
    // ledger has 174 of the 484 characters outside the compartments' texts, 400 * 174 / 484 = 143.8.
    expect([ledger.length, text.length - compartmentChars]).toEqual([174, 484])
    const measure = measureHistory({
      history: { text, tokens: 1_000 },
      compartments: COMPARTMENTS,
      agentPins: [{ tag: 11, text: "the build runs with --strict" }],
    })
    expect(measure).toEqual({
      tokens: 1_000,
      ledgerTokens: 144,
      pinnedFacts: 3,
      condensedPins: 0,
      omittedEpisodes: 0,
      tiers: [
        { tier: "full", compartments: 1, tokens: 500 },
        { tier: "compact", compartments: 2, tokens: 100 },
      ],
    })
  })

  it("ends the ledger where recalled lines begin", () => {
    const recalled = composeHistory({
      workingSet: WORKING_SET,
      pins: PINS,
      compartments: [],
      recalled: [{ displayId: "c1", tag: 2, text: "a recalled line that says quite a lot about nothing in particular" }],
    })
    const ledgerTokens = (text: string): number => measureHistory({ history: { text, tokens: 1_000 }, compartments: [], agentPins: [] }).ledgerTokens
    // The same ledger, in a longer text: its share of the tokens falls by the recalled section's characters.
    expect(ledgerTokens(recalled)).toBeLessThan(ledgerTokens(composeHistory({ workingSet: WORKING_SET, pins: PINS, compartments: [] })))
  })

  it("counts only the pins the ledger carries (an agent's pin of live material is not in it yet)", () => {
    const measure = measureHistory({
      history: { text: history({ pins: PINS.slice(0, 2) }), tokens: 1_000 },
      compartments: COMPARTMENTS,
      agentPins: [{ tag: 11, text: "the build runs with --strict" }],
    })
    expect(measure.pinnedFacts).toBe(2)
  })

  it("leaves out a compartment whose current tier is not in the history (omitted)", () => {
    const measure = measureHistory({
      history: { text: history({ omit: [1] }), tokens: 900 },
      compartments: COMPARTMENTS,
      agentPins: [{ tag: 11, text: "the build runs with --strict" }],
    })
    expect(measure.tiers).toEqual([
      { tier: "full", compartments: 1, tokens: 500 },
      { tier: "compact", compartments: 1, tokens: 60 },
    ])
    expect(measure.pinnedFacts).toBe(3)
  })

  it("reads the ledger with its condensed-pins notice and without episodes", () => {
    const text = composeHistory({ workingSet: WORKING_SET, pins: PINS, compartments: [], condensedPins: 4 })
    const ledger = ledgerOf(text)
    expect(ledger).toContain("(The ledger is full: the 4 pins it let go")
    const measure = measureHistory({
      history: { text, tokens: 200 },
      compartments: COMPARTMENTS.map((compartment) => ({ ...compartment, tier: null })),
      agentPins: [{ tag: 11, text: "the build runs with --strict" }],
    })
    expect(measure).toEqual({
      tokens: 200,
      ledgerTokens: Math.round((200 * ledger.length) / text.length),
      pinnedFacts: 3,
      condensedPins: 4,
      omittedEpisodes: 0,
      tiers: [],
    })
  })

  it("ends the ledger where the episodes begin when the history says some were omitted", () => {
    const rendered: RenderedCompartment[] = [{ id: "s#c3", tier: "full", text: "[c3 §9§–§12§] full text of c3" }]
    const text = composeHistory({
      workingSet: WORKING_SET,
      pins: PINS,
      compartments: rendered,
      omitted: { count: 2, first: "c1", last: "c2", firstTag: 1, lastTag: 8 },
    })
    const withoutOmitted = composeHistory({ workingSet: WORKING_SET, pins: PINS, compartments: rendered })
    const measured = (history: string) =>
      measureHistory({
        history: { text: history, tokens: 1_000 },
        compartments: COMPARTMENTS.map((compartment, index) => (index < 2 ? { ...compartment, tier: null } : compartment)),
        agentPins: [{ tag: 11, text: "the build runs with --strict" }],
      })
    expect(measured(text)).toMatchObject({ omittedEpisodes: 2, condensedPins: 0 })
    expect(measured(withoutOmitted)).toMatchObject({ omittedEpisodes: 0 })
    // The omitted line belongs to the episodes, not to the ledger: the ledger's share is as large as without it.
    const ledger = ledgerOf(text)
    expect(ledger).toBe(ledgerOf(withoutOmitted))
    const restChars = text.length - "[c3 §9§–§12§] full text of c3".length
    expect(measured(text).ledgerTokens).toBe(Math.round((500 * ledger.length) / restChars))
    expect(measured(text).tiers).toEqual([{ tier: "full", compartments: 1, tokens: 500 }])
  })

  it("counts an episode's condensed pins with the episode, not the ledger", () => {
    const condensed = [{ text: "Keep the retry limit at 3 in every worker of the queue", tags: [2] }]
    const rendered: RenderedCompartment[] = [{ id: "s#c1", tier: "compact", text: "[c1 §1§–§4§] compact text of c1", pins: condensed }]
    const text = composeHistory({ workingSet: WORKING_SET, pins: PINS, compartments: rendered, condensedPins: 1 })
    const measure = measureHistory({
      history: { text, tokens: 1_000 },
      compartments: COMPARTMENTS.map((compartment, index) => (index > 0 ? { ...compartment, tier: null } : compartment)),
      agentPins: [{ tag: 11, text: "the build runs with --strict" }],
    })
    const block = text.slice(text.indexOf("[c1 §1§–§4§]"), text.indexOf("\n\n## Pinned"))
    expect(block).toContain(condensed[0]?.text)
    // The block is longer than the representation: its count is scaled up by the characters the pins add.
    expect(measure.tiers).toEqual([{ tier: "compact", compartments: 1, tokens: Math.round((60 * block.length) / "[c1 §1§–§4§] compact text of c1".length) }])
    expect(measure.pinnedFacts).toBe(3)
    expect(measure.condensedPins).toBe(1)
  })

  it("has no ledger and no tiers for a history of the working set alone", () => {
    const text = composeHistory({ workingSet: WORKING_SET, pins: [], compartments: [] })
    expect(measureHistory({ history: { text, tokens: 40 }, compartments: [], agentPins: [] })).toEqual({
      tokens: 40,
      ledgerTokens: 0,
      pinnedFacts: 0,
      condensedPins: 0,
      omittedEpisodes: 0,
      tiers: [],
    })
  })

  it("takes a model historian's representation when the history carries it", () => {
    const model = { tier: "compact" as const, strategy: "source-grounded-model", content: "[c1] the model's compact c1", tokens: 33 }
    const compartment: MeasuredCompartment = {
      tier: "compact",
      representations: [...(COMPARTMENTS[0] as MeasuredCompartment).representations, model],
      pinnedFacts: [],
    }
    const text = composeHistory({
      workingSet: WORKING_SET,
      pins: [],
      compartments: [{ id: "s#c1", tier: "compact", text: model.content }],
    })
    const measure = measureHistory({ history: { text, tokens: 100 }, compartments: [compartment], agentPins: [] })
    expect(measure.tiers).toEqual([{ tier: "compact", compartments: 1, tokens: 33 }])
  })
})
