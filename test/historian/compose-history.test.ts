import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { composeHistory, episodeMemo, pinSearch, pinsSay, rewriteLines, withoutPinnedInvariant, type RenderedCompartment } from "../../src/historian/compose-history.js"
import type { WorkingSet } from "../../src/historian/working-set.js"

const WORKING_SET: WorkingSet = {
  objective: "make the slugify tests pass without touching the public API",
  filesModified: ["src/slugify.js", "test/slugify.test.js"],
  earlierFilesModified: 0,
  openTodos: ["run the linter", "update the changelog"],
  lastFailure: { command: "bash npm run lint", error: "src/slugify.js:3:7 error: Unexpected var" },
}

const EMPTY_WORKING_SET: WorkingSet = { objective: null, filesModified: [], earlierFilesModified: 0, openTodos: [], lastFailure: null }

const PINS = [
  { text: "Never change the public API of src/slugify.js", tags: [1] },
  { text: "Use Node 20 only.\nNo new dependencies.", tags: [7, 9] },
  { text: "a pin without a tag", tags: [] },
]

const COMPARTMENTS = [
  {
    id: "s#c1",
    tier: "compact" as const,
    text: "[c1 §1§–§6§]\nDecisions:\n- use NFKD because tables miss letters",
  },
  { id: "s#c2", tier: "anchor" as const, text: "[c2 §7§–§9§] lint fixed; entities: slugify.js" },
]

describe("composeHistory", () => {
  it("renders each compartment oldest first, then the pinned ledger and the working set (golden)", () => {
    const text = composeHistory({
      workingSet: WORKING_SET,
      pins: PINS,
      compartments: COMPARTMENTS
    })
    expect(text).toMatchInlineSnapshot(`
      "<session-history>
      Earlier parts of this session, condensed by magic-context. The raw transcript is kept; ctx_expand brings any episode back in full.

      ## Episodes (oldest first)

      [c1 §1§–§6§]
      Decisions:
      - use NFKD because tables miss letters

      [c2 §7§–§9§] lint fixed; entities: slugify.js

      ## Pinned (verbatim; these still apply)
      - §1§ Never change the public API of src/slugify.js
      - §7§ Use Node 20 only.
      No new dependencies.
      - a pin without a tag

      ## Working set
      Current objective (user's words): make the slugify tests pass without touching the public API
      Files modified: src/slugify.js, test/slugify.test.js
      Open todos: [ ] run the linter; [ ] update the changelog
      Last failure: bash npm run lint -> src/slugify.js:3:7 error: Unexpected var
      </session-history>"
    `)
  })

  it("says how many older pins the episodes hold, and renders each episode's condensed pins verbatim after it", () => {
    const episodePins = [{ text: "Keep the retry limit at 3.\nNever log tokens.", tags: [2] }]
    const text = composeHistory({
      workingSet: EMPTY_WORKING_SET,
      pins: [PINS[0] as (typeof PINS)[number]],
      condensedPins: 1,
      compartments: [{ ...(COMPARTMENTS[0] as (typeof COMPARTMENTS)[number]), pins: episodePins }, COMPARTMENTS[1] as (typeof COMPARTMENTS)[number]],
    })
    expect(text).toContain(
      '## Pinned (verbatim; these still apply)\n(The ledger is full: the 1 pins it let go, oldest first and constraints last, are kept verbatim in the episodes that hold them, under "Pinned (verbatim; these still apply)".)\n- §1§ Never change',
    )
    expect(text).toContain(
      "[c1 §1§–§6§]\nDecisions:\n- use NFKD because tables miss letters\nPinned (verbatim; these still apply):\n- §2§ Keep the retry limit at 3.\nNever log tokens.\n\n[c2",
    )
  })

  it("says which episodes it leaves out, where the episodes begin", () => {
    const text = composeHistory({
      workingSet: EMPTY_WORKING_SET,
      pins: [],
      compartments: [COMPARTMENTS[1] as (typeof COMPARTMENTS)[number]],
      omitted: { count: 1_200, first: "c1", last: "c1200", firstTag: 1, lastTag: 3_600 },
    })
    expect(text).toContain(
      '## Episodes (oldest first)\n\n(Not shown: 1200 earlier episodes from c1 to c1200 (§1§–§3600§): even at their least detail they did not fit the window. The raw transcript keeps them; ctx_expand brings one back, e.g. "c1".)\n\n[c2 §7§–§9§]',
    )
  })

  it("counts the files it does not list", () => {
    const text = composeHistory({ workingSet: { ...WORKING_SET, earlierFilesModified: 412 }, pins: [], compartments: [] })
    expect(text).toContain("Files modified: src/slugify.js, test/slugify.test.js (and 412 modified earlier)\n")
  })

  it("puts recalled lines after the ledger, before the working set, and no section when there are none", () => {
    const recalled = [{ displayId: "c1", tag: 4, text: "NORMALIZE_FORM = 'NFKD'" }, { displayId: "c2", tag: null, text: "lint: 0 problems" }]
    const text = composeHistory({ workingSet: WORKING_SET, pins: PINS, compartments: COMPARTMENTS, recalled })
    const section = "## Recalled by reference\nLines of condensed episodes that the recent conversation names again (ctx_expand on the tag gives the whole part):\n- c1 §4§: NORMALIZE_FORM = 'NFKD'\n- c2: lint: 0 problems\n\n## Working set"
    expect(text).toContain(section)
    expect(text.indexOf("## Pinned")).toBeLessThan(text.indexOf("## Recalled by reference"))
    expect(composeHistory({ workingSet: WORKING_SET, pins: PINS, compartments: COMPARTMENTS, recalled: [] })).toBe(
      composeHistory({ workingSet: WORKING_SET, pins: PINS, compartments: COMPARTMENTS }),
    )
  })

  it("leaves out the sections it has nothing for", () => {
    const text = composeHistory({ workingSet: EMPTY_WORKING_SET, pins: [], compartments: [] })
    expect(text).toMatchInlineSnapshot(`
      "<session-history>
      Earlier parts of this session, condensed by magic-context. The raw transcript is kept; ctx_expand brings any episode back in full.

      ## Working set
      </session-history>"
    `)
  })

  it("is byte-identical for the same inputs and does not change them", () => {
    const options = { workingSet: WORKING_SET, pins: PINS, compartments: COMPARTMENTS }
    const copy = structuredClone(options)
    expect(composeHistory(options)).toBe(composeHistory(structuredClone(options)))
    expect(options).toEqual(copy)
  })
})

describe("composeHistory across episodes", () => {
  const episodes = (...texts: string[]) => texts.map((text, index) => ({ id: `c${index + 1}`, tier: "compact" as const, text }))
  const compose = (...texts: string[]): string =>
    composeHistory({ workingSet: EMPTY_WORKING_SET, pins: [], compartments: episodes(...texts) })

  it("lists an identifier under the first episode that lists it, drops a line left empty, and keeps older text as it was", () => {
    const first = "[c1 §1§–§4§]\nIdentifiers: src/a.ts, PORT=3100, npm test"
    const history = compose(first, "[c2 §5§–§9§]\nFailures:\n- bash npm test → 1 failing\nIdentifiers: npm test, src/b.ts, src/a.ts", "[c3]\nIdentifiers: src/b.ts\nOutcome: done")
    expect(history).toContain(`\n${first}\n`)
    expect(history).toContain("[c2 §5§–§9§]\nFailures:\n- bash npm test → 1 failing\nIdentifiers: src/b.ts\n")
    expect(history).toContain("[c3]\nOutcome: done")
    for (const identifier of ["src/a.ts", "PORT=3100", "npm test", "src/b.ts"]) expect(history).toContain(identifier)
    // Adding an episode never changes the text of the ones before it.
    const episodesOf = (text: string): string => text.slice(0, text.indexOf("\n\n## Working set"))
    expect(compose(first, "[c2]\nIdentifiers: src/a.ts").startsWith(episodesOf(compose(first)))).toBe(true)
  })

  it("leaves a line alone when an identifier in it holds ', ' (a signature would be cut into pieces)", () => {
    const history = compose("[c1]\nIdentifiers: paddingX", "[c2]\nIdentifiers: (text, paddingX, paddingY), src/c.ts")
    expect(history).toContain("[c2]\nIdentifiers: (text, paddingX, paddingY), src/c.ts")
  })
})

describe("composeHistory and the pinned ledger", () => {
  const compose = (pins: { text: string; tags: number[] }[], text: string): string =>
    composeHistory({ workingSet: EMPTY_WORKING_SET, pins, compartments: [{ id: "c1", tier: "compact", text }] })
  const episode = "[c1 §1§–§4§]\nInvariant: do not change the public API of src/slugify.js\nOutcome: done"

  it("leaves out an episode's invariant the ledger already says, also when the invariant was shortened", () => {
    const pins = [{ text: "Fix slugify. Do not touch tests; do not change the public API of src/slugify.js", tags: [1] }]
    expect(compose(pins, episode)).toContain("[c1 §1§–§4§]\nOutcome: done")
    const shortened = "[c1]\nInvariant: do not change the public…\nOutcome: done"
    expect(compose(pins, shortened)).toContain("[c1]\nOutcome: done")
  })

  it("keeps an invariant no pin says", () => {
    expect(compose([{ text: "use pnpm", tags: [2] }], episode)).toContain("Invariant: do not change the public API of src/slugify.js")
    expect(compose([], episode)).toContain("Invariant: do not change the public API of src/slugify.js")
  })
})

describe("composeHistory stable-first", () => {
  const episode = (index: number): RenderedCompartment => ({
    id: `s#c${index}`,
    tier: "compact",
    text: `[c${index} §${index * 3}§–§${index * 3 + 2}§]\nDecisions:\n- step ${index} keeps the retry limit\nIdentifiers: src/step${index}.ts`,
  })

  it("keeps the older episodes a byte prefix when an execute adds an episode, a pin and a new working set", () => {
    const before = composeHistory({ workingSet: WORKING_SET, pins: PINS.slice(0, 1), compartments: [episode(1), episode(2)] })
    const after = composeHistory({
      workingSet: { ...WORKING_SET, lastFailure: { command: "bash npm test", error: "1 failing" }, filesModified: ["src/step3.ts"] },
      pins: PINS.slice(0, 2),
      compartments: [episode(1), episode(2), episode(3)],
    })
    // Everything up to the end of the second episode is shared; the first change is where the third one begins.
    const shared = before.slice(0, before.indexOf("\n\n## Pinned"))
    expect(shared).toContain("- step 2 keeps the retry limit")
    expect(after.startsWith(shared)).toBe(true)
    expect(after.slice(shared.length).startsWith("\n\n[c3 ")).toBe(true)
  })
})

describe("composeHistory with a memo of the last composition", () => {
  // Episodes as a fold sees them: tiers that list identifiers (shared between episodes), an invariant a pin may say,
  // and condensed pins; each composition below changes what a pass can change.
  const texts = {
    c1: "[c1 §1§–§4§]\nInvariant: do not change the public API of src/slugify.js\nIdentifiers: src/slugify.js, npm test",
    c2: "[c2 §5§–§9§]\nFailures:\n- bash npm test → 1 failing\nIdentifiers: npm test, src/b.ts, src/slugify.js",
    c2anchor: "[c2 §5§–§9§] fixed the failing test; Identifiers: src/b.ts",
    c3: "[c3 §10§–§12§]\nIdentifiers: src/b.ts, (text, paddingX), PORT=3100\nOutcome: done",
    c4: "[c4 §13§–§15§]\nIdentifiers: PORT=3100, src/c.ts",
  }
  const pin = { text: "do not change the public API of src/slugify.js", tags: [1] }
  const at = (id: keyof typeof texts, tier: RenderedCompartment["tier"] = "compact", pins: RenderedCompartment["pins"] = []): RenderedCompartment => ({
    id: id.slice(0, 2),
    tier,
    text: texts[id],
    pins,
  })
  const steps: { pins: { text: string; tags: number[] }[]; compartments: RenderedCompartment[] }[] = [
    { pins: [], compartments: [at("c1"), at("c2")] },
    { pins: [], compartments: [at("c1"), at("c2"), at("c3")] },
    // A tier switch in the middle: the episodes after it list again what it no longer lists.
    { pins: [], compartments: [at("c1"), at("c2anchor", "anchor"), at("c3"), at("c4")] },
    // The ledger changes: an invariant it says leaves every episode.
    { pins: [pin], compartments: [at("c1"), at("c2anchor", "anchor"), at("c3"), at("c4")] },
    // The ledger condenses the pin into its episode.
    { pins: [], compartments: [at("c1", "compact", [pin]), at("c2anchor", "anchor"), at("c3"), at("c4")] },
    // The oldest episode is left out (the default policy omits the oldest first).
    { pins: [], compartments: [at("c2anchor", "anchor"), at("c3"), at("c4")] },
    { pins: [], compartments: [] },
    { pins: [], compartments: [at("c1"), at("c2"), at("c3"), at("c4")] },
  ]

  it("gives the bytes a composition without it gives, at every step of a session's folds", () => {
    const memo = episodeMemo()
    for (const step of steps) {
      const options = { workingSet: WORKING_SET, condensedPins: 0, ...step }
      expect(composeHistory({ ...options, memo })).toBe(composeHistory(options))
    }
  })

  it("gives the same bytes for any order of compositions drawn from those steps", () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: steps.length - 1 }), { minLength: 1, maxLength: 12 }), (order) => {
        const memo = episodeMemo()
        for (const index of order) {
          const options = { workingSet: EMPTY_WORKING_SET, ...(steps[index] as (typeof steps)[number]) }
          expect(composeHistory({ ...options, memo })).toBe(composeHistory(options))
        }
      }),
      { numRuns: 300 },
    )
  })

  it("is left empty, not half-updated, by a composition that throws", () => {
    const memo = episodeMemo()
    composeHistory({ workingSet: EMPTY_WORKING_SET, pins: [], compartments: [at("c1"), at("c2")], memo })
    const broken = { id: "c3", tier: "compact", get text(): string { throw new Error("unreadable") } } as RenderedCompartment
    expect(() => composeHistory({ workingSet: EMPTY_WORKING_SET, pins: [], compartments: [at("c1"), at("c2"), broken], memo })).toThrow("unreadable")
    expect(memo.episodes).toEqual([])
    const options = { workingSet: EMPTY_WORKING_SET, pins: [], compartments: [at("c1"), at("c3")] }
    expect(composeHistory({ ...options, memo })).toBe(composeHistory(options))
  })
})

describe("withoutPinnedInvariant", () => {
  // The rule line by line: a line that states an invariant a pin already says goes (a text without a second-line
  // invariant is left as it is).
  const byLines = (text: string, pins: readonly { text: string; tags: number[] }[]): string => {
    if (pins.length === 0 || !text.includes("\nInvariant: ")) return text
    return text
      .split("\n")
      .filter((line) => !line.startsWith("Invariant: ") || !pins.some((pin) => pin.text.includes(line.slice(11).replace(/…$/, ""))))
      .join("\n")
  }
  const line = fc.oneof(
    fc.constantFrom("", "[c3 §4§–§6§]", "Invariant: keep the cap at 1000", "Invariant: never log secrets…", "Invariant: other", "Noted:"),
    fc.string({ maxLength: 12 }),
  )
  const pins = fc.array(
    fc.constantFrom("keep the cap at 1000 for every batch", "never log secrets in CI", "unrelated pin").map((text) => ({ text, tags: [1] })),
    { maxLength: 3 },
  )

  it("removes exactly the lines the line-by-line rule removes", () => {
    fc.assert(
      fc.property(fc.array(line, { maxLength: 12 }), pins, (lines, given) => {
        const text = lines.join("\n")
        expect(withoutPinnedInvariant(text, given.length === 0 ? null : (said) => pinsSay(pinSearch(given), said))).toBe(byLines(text, given))
      }),
      { numRuns: 2000 },
    )
  })

  it("keeps an invariant no pin says, and the lines around a removed one", () => {
    const pin = [{ text: "keep the cap at 1000 for every batch", tags: [1] }]
    expect(withoutPinnedInvariant("[c1]\nInvariant: keep the cap at 1000\nNoted:\n", (said) => pinsSay(pinSearch(pin), said))).toBe("[c1]\nNoted:\n")
    expect(withoutPinnedInvariant("[c1]\nInvariant: other\nInvariant: keep the cap at 1000", (said) => pinsSay(pinSearch(pin), said))).toBe("[c1]\nInvariant: other")
  })
})

describe("rewriteLines", () => {
  const byLines = (text: string, prefix: string, rewrite: (line: string) => string | null | undefined): string =>
    text
      .split("\n")
      .flatMap((line) => {
        if (!line.startsWith(prefix)) return [line]
        const replaced = rewrite(line)
        return replaced === undefined ? [line] : replaced === null ? [] : [replaced]
      })
      .join("\n")
  // Keeps, removes or replaces a line by its last character, so every mix of the three occurs.
  const rewrite = (line: string): string | null | undefined =>
    line.endsWith("a") ? null : line.endsWith("b") ? `${line} (b)` : undefined

  it("gives what splitting into lines, rewriting and joining gives", () => {
    const line = fc.oneof(fc.constantFrom("", "P: a", "P: b", "P: c", "x P: a", "P:a"), fc.string({ maxLength: 6 }))
    fc.assert(
      fc.property(fc.array(line, { maxLength: 10 }), (lines) => {
        const text = lines.join("\n")
        expect(rewriteLines(text, "P: ", rewrite)).toBe(byLines(text, "P: ", rewrite))
      }),
      { numRuns: 3000 },
    )
  })
})
