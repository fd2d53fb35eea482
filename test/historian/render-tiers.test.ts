import { describe, expect, it } from "vitest"
import { extractCanonicalRecord, type CanonicalRecord } from "../../src/historian/canonical-record.js"
import { TIERS, type Tier } from "../../src/historian/fidelity-types.js"
import { ANCHOR_OUTCOME_CHARS, COMPACT_FACT_CHARS, renderTiers, WHOLE_REASON_CHARS } from "../../src/historian/render-tiers.js"
import type { HostMessage } from "../../src/transcript/host-message.js"
import { assistantMessage, completed, failed, reasoning, text, tool, userMessage } from "../helpers/host-messages.js"
import { tagMessages } from "./trace-episodes.js"

function record(messages: HostMessage[], compartmentId = "c7"): CanonicalRecord {
  return extractCanonicalRecord({ compartmentId, messages, tagOf: tagMessages(messages) })
}

const LONG_DECISION =
  "I'll use NFKD normalization in src/slugify.js because a table of accented letters would miss characters nobody " +
  "listed, and normalization covers every combining mark the Unicode standard defines for Latin letters without " +
  "any maintenance burden for the project."

const CONSTRAINT = "Constraint: do not change the public API of src/slugify.js"

/** What a read returns: a file of some length, with one setting and one rule among ordinary code. */
const SLUGIFY_SOURCE = [
  "<path>src/slugify.js</path>",
  "<type>file</type>",
  "<content>",
  "1: // Public API: slugify(title, options?) must stay stable for the CMS plugins.",
  "2: export const MAX_SLUG_LENGTH = 80",
  ...Array.from({ length: 40 }, (_, index) => `${index + 3}:   const part${index} = title.slice(${index}, ${index + 1}).trim()`),
  "43: export function slugify(t) {",
  "</content>",
].join("\n")

/** An episode with something for every section: user words, narrative, calls, a failure, decisions, locations. */
function richEpisode(): HostMessage[] {
  return [
    userMessage({
      id: "u1",
      parts: [text("u1-t", `the slugify tests fail. Find out why and fix it.\n${CONSTRAINT}`)],
    }),
    assistantMessage({
      id: "a1",
      parts: [
        text("a1-t", "Let me reproduce it first."),
        tool(
          "a1-x",
          "bash",
          completed(
            { command: "node test/slugify.test.js" },
            "AssertionError [ERR_ASSERTION]: Expected 'hello-world'\n    at test/slugify.test.js:4:8",
          ),
        ),
        tool("a1-y", "read", completed({ filePath: "src/slugify.js", offset: 1 }, SLUGIFY_SOURCE)),
      ],
    }),
    assistantMessage({
      id: "a2",
      parts: [
        reasoning("a2-r", "The lookup table didn't work because it misses letters."),
        text("a2-t", `The root cause is that slugify never lower-cases its input. ${LONG_DECISION}`),
        tool(
          "a2-x",
          "edit",
          completed({ filePath: "src/slugify.js", oldString: "title", newString: 'title.normalize("NFKD")' }, "ok"),
        ),
        tool(
          "a2-y",
          "bash",
          failed({ command: "npm run lint" }, "src/slugify.js:3:7 error: Unexpected var\nCommand exited with code 1"),
        ),
      ],
    }),
    assistantMessage({
      id: "a3",
      parts: [text("a3-t", "Fixed: all slugify tests pass and the public signature is unchanged.")],
    }),
  ]
}

function rendered(tiers: Record<Tier, string | null>): string {
  return TIERS.map((tier) => `===== ${tier}\n${tiers[tier] ?? "(null)"}`).join("\n")
}

describe("renderTiers", () => {
  it("renders the four tiers of an episode (golden)", async () => {
    const tiers = renderTiers(record(richEpisode()))
    await expect(rendered(tiers)).toMatchFileSnapshot("./__snapshots__/render-tiers.rich.txt")
  })

  it("is byte-identical when rendered twice from records extracted twice", () => {
    const first = renderTiers(record(richEpisode()))
    const second = renderTiers(record(richEpisode()))
    expect(second).toEqual(first)
  })

  it("renders full from the source: the user's words, the narrative, every call's input and output", () => {
    const tiers = renderTiers(record(richEpisode()))
    expect(tiers.full).toContain("Constraint: do not change the public API of src/slugify.js")
    expect(tiers.full).toContain("Let me reproduce it first.")
    expect(tiers.full).toContain("§4§ tool read\n  filePath: src/slugify.js\n  offset: 1\nread output: <path>src/slugify.js</path>")
    expect(tiers.full).toContain("const part39 = title.slice(39, 40).trim()")
    expect(tiers.full).toContain('newString: title.normalize("NFKD")')
    for (const tier of ["dense", "compact"] as const) {
      expect(tiers[tier]).not.toContain("the slugify tests fail")
      expect(tiers[tier]).not.toContain("const part39")
    }
    // The assistant's narrative decays after the raw tool output: dense keeps it, compact does not.
    expect(tiers.dense).toContain("Narrative:\n- Let me reproduce it first.")
    expect(tiers.compact).not.toContain("Let me reproduce it first.")
  })

  it("keeps in dense the facts of tool output (the read file's setting and rule lines), not in compact", () => {
    const tiers = renderTiers(record(richEpisode()))
    expect(tiers.dense).toContain("§4§ read src/slugify.js (ok)\n  // Public API: slugify(title, options?) must stay stable")
    expect(tiers.dense).toContain("  export const MAX_SLUG_LENGTH = 80")
    expect(tiers.compact).not.toContain("read src/slugify.js (ok)")
    expect(tiers.compact).not.toContain("export const MAX_SLUG_LENGTH = 80")
  })

  it("carries the critical invariant in every tier", () => {
    const tiers = renderTiers(record(richEpisode()))
    for (const tier of TIERS) expect(tiers[tier]).toContain("do not change the public API of src/slugify.js")
  })

  it("keeps line numbers in dense and only paths in compact", () => {
    const tiers = renderTiers(record(richEpisode()))
    expect(tiers.dense).toContain("src/slugify.js:3:7")
    expect(tiers.dense).toContain("test/slugify.test.js:4:8")
    expect(tiers.compact).not.toMatch(/Locations:.*:\d/)
    expect(tiers.compact).not.toContain("test/slugify.test.js:4:8")
    expect(tiers.compact).toContain("src/slugify.js")
  })

  it("lists an identifier only when the tier does not already write it out, and never loses one", () => {
    const episode = record(richEpisode())
    const tiers = renderTiers(episode)
    const identifiers = episode.facts.filter((fact) => fact.kind === "identifier").map((fact) => fact.text)
    expect(identifiers.length).toBeGreaterThan(3)
    for (const tier of ["full", "dense", "compact"] as const) {
      for (const identifier of identifiers) expect(tiers[tier], `${tier}: ${identifier}`).toContain(identifier)
    }
    // Every identifier of this episode is inside a failure or decision line (or a longer identifier): no list.
    expect(tiers.compact).not.toContain("Identifiers:")
    const listed = renderTiers({ ...episode, facts: episode.facts.filter((fact) => fact.kind === "identifier") })
    expect(listed.compact).toContain("Identifiers: src/slugify.js, AssertionError, ERR_ASSERTION, hello-world, node test/slugify.test.js, npm run lint")
    expect(listed.compact).not.toContain(", test/slugify.test.js")
  })

  it("shortens long decisions in compact without cutting through an identifier", () => {
    // Under 280 characters with its reason, the decision stays whole while `whole-reasons` is on (tested below).
    const tiers = renderTiers(record(richEpisode()), { on: (name) => name !== "whole-reasons" })
    expect(tiers.dense).toContain(LONG_DECISION)
    const line = tiers.compact?.split("\n").find((candidate) => candidate.startsWith("- I'll use NFKD"))
    expect(line).toBeDefined()
    expect(line?.length ?? 0).toBeLessThanOrEqual(COMPACT_FACT_CHARS + 3)
    expect(line).toMatch(/…$/)
    expect(line).toContain("src/slugify.js")
  })

  it("quotes a decision with its own reason whole in compact up to WHOLE_REASON_CHARS, and only a decision", () => {
    const reasoned =
      "The export job reads from the replica inside a REPEATABLE READ transaction opened once per run, so every " +
      "table in one archive shows the same moment and a long export never blocks writers on the primary."
    const rejected =
      "I considered dumping with pg_dump per table, but rejected it: each table would come from a different " +
      "snapshot, so the archive could hold an order whose customer row was written after the dump of customers began."
    const messages = [
      userMessage({ id: "u1", parts: [text("u1-t", "make the nightly export consistent")] }),
      assistantMessage({
        id: "a1",
        parts: [tool("a1-r", "read", completed({ filePath: "jobs/export.py" }, SLUGIFY_SOURCE)), text("a1-t", `${reasoned} ${rejected}`)],
      }),
      assistantMessage({ id: "a2", parts: [text("a2-t", "The nightly export runs at 02:00 as before.")] }),
    ]
    expect(reasoned.length).toBeGreaterThan(COMPACT_FACT_CHARS)
    expect(reasoned.length).toBeLessThanOrEqual(WHOLE_REASON_CHARS)
    const tiers = renderTiers(record(messages))
    expect(tiers.compact).toContain(`- ${reasoned}`)
    // A rejection is still shortened to the compact length, keeping its reason.
    const rejection = tiers.compact?.split("\n").find((line) => line.startsWith("- I considered"))
    expect(rejection?.length ?? 0).toBeLessThanOrEqual(COMPACT_FACT_CHARS + 3)
    const off = renderTiers(record(messages), { on: (name) => name !== "whole-reasons" })
    expect(off.compact).not.toContain(reasoned)
  })

  it("gives the anchor exactly its contract: id, tag range, outcome, invariant, entities", () => {
    const anchor = renderTiers(record(richEpisode())).anchor
    expect(anchor).toMatch(/^\[c7 §1§–§\d+§\] [^\n]+; invariant: [^\n]+; entities: [^\n]+$/)
    expect(anchor).toBe(
      "[c7 §1§–§8§] Fixed: all slugify tests pass and the public signature is unchanged.; " +
        "invariant: Constraint: do not change the public API of src/slugify.js; " +
        "entities: slugify.js, AssertionError, node, npm run lint",
    )
  })

  it("shortens the anchor outcome and says so when there is none", () => {
    const long = `Done and ${"verified ".repeat(30)}everything.`
    const messages = [
      userMessage({ id: "u1", parts: [text("u1-t", "go")] }),
      assistantMessage({ id: "a1", parts: [text("a1-t", long)] }),
    ]
    const anchor = renderTiers(record(messages)).anchor
    expect(anchor.length).toBeLessThan(ANCHOR_OUTCOME_CHARS + 60)
    expect(anchor).toMatch(/…; invariant: go$/)
    expect(renderTiers(record([])).anchor).toBe("[c7] (no outcome)")
  })

  it("shows an episode shorter than its own anchor whole, on one line, as the anchor", () => {
    const episode = record([assistantMessage({ id: "a1", parts: [text("a1-t", "Updated the file; every test passes now.")] })])
    const tiers = renderTiers({ ...episode, full: "§1§ assistant: ok\nsecond line" })
    expect(tiers).toEqual({ full: null, dense: null, compact: null, anchor: "[c7 §1§–§1§] §1§ assistant: ok second line" })
  })

  it("keeps lengths monotone: full >= dense >= compact >= anchor", () => {
    const tiers = renderTiers(record(richEpisode()))
    const lengths = TIERS.map((tier) => tiers[tier]?.length ?? 0)
    expect(lengths).toEqual([...lengths].sort((left, right) => right - left))
  })

  it.each([
    [
      "an empty episode has only its anchor",
      [] as HostMessage[],
      { full: null, dense: null, compact: null },
    ],
    [
      "a bare 'continue' has nothing for dense or compact",
      [userMessage({ id: "u1", parts: [text("u1-t", "continue")] })],
      { full: "present", dense: null, compact: null },
    ],
    [
      "a decision without narrative makes dense equal compact",
      [
        assistantMessage({
          id: "a1",
          parts: [text("a1-t", "I'll use rg because grep is slow here, and it respects the .gitignore of the repository by default.")],
        }),
      ],
      { full: "present", dense: null, compact: "present" },
    ],
  ])("returns null for a tier that adds nothing: %s", (_, messages, expected) => {
    const tiers = renderTiers(record(messages))
    const shape = {
      full: tiers.full === null ? null : "present",
      dense: tiers.dense === null ? null : "present",
      compact: tiers.compact === null ? null : "present",
    }
    expect(shape).toEqual(expected)
    expect(tiers.anchor).not.toBeNull()
  })
})
