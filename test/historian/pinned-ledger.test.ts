import { describe, expect, it } from "vitest"
import {
  EPISODE_PINS_LABEL,
  episodePinTokens,
  ledgerLines,
  PINNED_HEADING,
  pinLine,
  splitLedger,
  withEpisodePins,
} from "../../src/historian/pinned-ledger.js"
import { wordCounter } from "../helpers/host-messages.js"

/** Pins oldest first: "pin N" with five more words, tag N. */
const pins = (count: number) => Array.from({ length: count }, (_, index) => ({ text: `pin ${index + 1} keep this one verbatim`, tags: [index + 1] }))

const sectionTokens = (ledger: ReturnType<typeof pins>, condensed: number): number =>
  wordCounter.count(ledgerLines(ledger, condensed).join("\n"))

describe("splitLedger", () => {
  it("keeps every pin in the ledger while they fit, with no notice", () => {
    const all = pins(3)
    const split = splitLedger({ pins: all, budgetTokens: 1_000, count: wordCounter.count })
    expect(split.ledger).toEqual(all)
    expect(split.condensed).toEqual([])
    expect(split.tokens).toBe(sectionTokens(all, 0))
    expect(ledgerLines(split.ledger, 0)).toEqual([PINNED_HEADING, ...all.map(pinLine)])
  })

  it("keeps the newest pins that fit and condenses the oldest, never exceeding the budget", () => {
    const all = pins(40)
    for (const budget of [0, 5, 30, 57, 100, 150]) {
      const split = splitLedger({ pins: all, budgetTokens: budget, count: wordCounter.count })
      // A prefix of the oldest is condensed, the rest (the newest) stays, in order.
      expect([...split.condensed, ...split.ledger]).toEqual(all)
      expect(split.tokens).toBe(sectionTokens(split.ledger, split.condensed.length))
      expect(split.tokens).toBeLessThanOrEqual(budget)
    }
    const split = splitLedger({ pins: all, budgetTokens: 100, count: wordCounter.count })
    expect(split.ledger.length).toBeGreaterThan(0)
    expect(split.condensed.length).toBeGreaterThan(0)
    // Not one more would have fitted.
    const oneMore = all.slice(all.length - split.ledger.length - 1)
    expect(sectionTokens(oneMore, split.condensed.length - 1)).toBeGreaterThan(100)
  })

  it("says in the ledger how many older pins their episodes hold", () => {
    const split = splitLedger({ pins: pins(40), budgetTokens: 100, count: wordCounter.count })
    const lines = ledgerLines(split.ledger, split.condensed.length)
    expect(lines[1]).toBe(
      `(The ledger is full: the ${split.condensed.length} pins it let go, oldest first and constraints last, are kept verbatim in the episodes that hold them, under "${EPISODE_PINS_LABEL}".)`,
    )
  })

  it("lets go of the pins that bind nothing first, oldest first, then of constraints, oldest first", () => {
    // Oldest first: a constraint, a plain pin, a constraint, a plain pin; each longer than the ledger's notice.
    const mixed = [1, 2, 3, 4].map((tag) => ({ text: `pin ${tag} ${"verbatim ".repeat(40).trim()}`, tags: [tag], binding: tag % 2 === 1 }))
    const keptAt = (budgetTokens: number): number[] =>
      splitLedger({ pins: mixed, budgetTokens, count: wordCounter.count }).ledger.map((pin) => pin.tags[0] as number)
    const budgetFor = (kept: readonly number[]): number =>
      sectionTokens(mixed.filter((pin) => kept.includes(pin.tags[0] as number)) as ReturnType<typeof pins>, mixed.length - kept.length)
    expect(keptAt(budgetFor([1, 2, 3, 4]))).toEqual([1, 2, 3, 4])
    expect(keptAt(budgetFor([1, 3, 4]))).toEqual([1, 3, 4])
    expect(keptAt(budgetFor([1, 3]))).toEqual([1, 3])
    expect(keptAt(budgetFor([3]))).toEqual([3])
    // Whatever the budget, the split is the whole list, and the ledger fits.
    for (let budget = 0; budget <= budgetFor([1, 2, 3, 4]); budget += 1) {
      const split = splitLedger({ pins: mixed, budgetTokens: budget, count: wordCounter.count })
      expect(split.ledger.length + split.condensed.length).toBe(4)
      expect(split.tokens).toBeLessThanOrEqual(budget)
    }
  })

  it("renders no section at all when not one pin fits", () => {
    const split = splitLedger({ pins: pins(2), budgetTokens: 3, count: wordCounter.count })
    expect(split).toEqual({ ledger: [], condensed: pins(2), tokens: 0 })
    expect(ledgerLines([], 2)).toEqual([])
  })

  it("gives the same split for the same pins and budget", () => {
    const first = splitLedger({ pins: pins(200), budgetTokens: 321, count: wordCounter.count })
    expect(splitLedger({ pins: pins(200), budgetTokens: 321, count: wordCounter.count })).toEqual(first)
  })
})

describe("withEpisodePins", () => {
  const episode = "[c4 §10§–§14§]\nDecisions:\n- use a lookup table\nOutcome: done"
  const condensed = [
    { text: "Never touch the public API.\nKeep Node 20.", tags: [10] },
    { text: "use a lookup table", tags: [] },
  ]

  it("appends the pins a tier does not already say, verbatim, under one label", () => {
    const text = withEpisodePins(episode, condensed)
    expect(text).toBe(`${episode}\n${EPISODE_PINS_LABEL}:\n- §10§ Never touch the public API.\nKeep Node 20.`)
    for (const pin of condensed) expect(text).toContain(pin.text)
  })

  it("leaves a tier that already holds every pin (FULL holds the user's words) unchanged", () => {
    expect(withEpisodePins(episode, [{ text: "use a lookup table", tags: [11] }])).toBe(episode)
    expect(withEpisodePins(episode, [])).toBe(episode)
  })

  it("counts what it adds from the lines' own counts", () => {
    const added = withEpisodePins(episode, condensed).slice(episode.length)
    expect(episodePinTokens(episode, condensed, wordCounter.count)).toBeGreaterThanOrEqual(wordCounter.count(added))
    expect(episodePinTokens(episode, [{ text: "use a lookup table", tags: [] }], wordCounter.count)).toBe(0)
  })
})
