import { beforeAll, describe, expect, it } from "vitest"
import { SPEC_PREFIX } from "../../src/historian/output-facts.js"
import { extractCanonicalRecord, type CanonicalRecord } from "../../src/historian/canonical-record.js"
import { checkCrossTierConsistency } from "../../src/historian/check-cross-tier-consistency.js"
import { TIERS, type FactKind, type Tier } from "../../src/historian/fidelity-types.js"
import { renderTiers } from "../../src/historian/render-tiers.js"
import { ungroundedIdentifiers } from "./grounding.js"
import { fixturePath, loadTraceEpisodes, type TraceEpisode } from "./trace-episodes.js"

/**
 * The canonical record on real transcripts: each trace is cut into episodes with `cutCompartments`, every episode's
 * record and tiers are built once, and the facts a later probe would ask for (verified by reading the traces, see
 * fixtures/traces/SOURCES.md) must be recognised with the right kind.
 */

type Extracted = { episode: TraceEpisode; record: CanonicalRecord; tiers: Record<Tier, string | null> }

const TRACES = [
  "traces/raw/claudecode-opus46-spotter-gqc.jsonl",
  "traces/raw/openhands-llama4-ponyc.jsonl#2",
  "traces/raw/pi-sonnet45-large-session.jsonl",
  "traces/raw/sweagent-gpt4-pydicom-1458.traj",
  "opencode-session/session.json",
] as const

const extracted = new Map<string, Extracted[]>()

beforeAll(() => {
  for (const trace of TRACES) {
    const { episodes, tagOf } = loadTraceEpisodes(fixturePath(trace))
    extracted.set(
      trace,
      episodes.map((episode) => {
        const record = extractCanonicalRecord({ compartmentId: episode.id, messages: episode.messages, tagOf })
        return { episode, record, tiers: renderTiers(record) }
      }),
    )
  }
})

function episodesOf(trace: (typeof TRACES)[number]): Extracted[] {
  const result = extracted.get(trace)
  if (result === undefined) throw new Error(`trace ${trace} was not loaded`)
  return result
}

/** Fact texts of one kind across a trace's episodes. */
function factTexts(trace: (typeof TRACES)[number], kind: FactKind): string[] {
  return episodesOf(trace).flatMap(({ record }) =>
    record.facts.filter((fact) => fact.kind === kind).map((fact) => fact.text),
  )
}

function expectFact(trace: (typeof TRACES)[number], kinds: FactKind[], fragment: string): void {
  const texts = kinds.flatMap((kind) => factTexts(trace, kind))
  const found = texts.some((text) => text.includes(fragment))
  expect(found, `${kinds.join("/")} containing ${JSON.stringify(fragment)}`).toBe(true)
}

describe.each(TRACES)("canonical record of %s", (trace) => {
  it("grounds every identifier of every fact in the messages it cites", () => {
    for (const { episode, record } of episodesOf(trace)) {
      expect(ungroundedIdentifiers(record, episode.messages)).toEqual([])
    }
  })

  it("renders tiers that nest, name only recorded identifiers and shrink monotonically", () => {
    for (const { record, tiers } of episodesOf(trace)) {
      expect(checkCrossTierConsistency(tiers, record)).toEqual([])
      const lengths = TIERS.flatMap((tier) => (tiers[tier] === null ? [] : [tiers[tier]?.length ?? 0]))
      expect(lengths).toEqual([...lengths].sort((left, right) => right - left))
      expect(tiers.anchor).toMatch(new RegExp(`^\\[${record.compartmentId}( §\\d+§–§\\d+§)?\\] `))
      expect(tiers.anchor).not.toContain("\n")
    }
  })

  it("covers every settled message exactly once with non-overlapping tag ranges", () => {
    const records = episodesOf(trace).map(({ record }) => record)
    const ids = records.flatMap((record) => record.source.messageIds)
    expect(new Set(ids).size).toBe(ids.length)
    const ranges = records.flatMap(({ source }) =>
      source.firstTag === null || source.lastTag === null ? [] : [[source.firstTag, source.lastTag] as const],
    )
    for (const [index, [, last]] of ranges.entries()) {
      const next = ranges[index + 1]
      if (next !== undefined) expect(last).toBeLessThan(next[0])
    }
  })
})

describe("pi (claude-sonnet-4-5 porting the TUI to themes)", () => {
  const trace = "traces/raw/pi-sonnet45-large-session.jsonl"

  it("records the user's 'i undid your changes' as a rejected alternative and keeps it verbatim", () => {
    expectFact(trace, ["rejected_alternative"], "i undid your changes, try again")
    expectFact(trace, ["constraint"], "you fucked thet component up REAL fucking good. i undid your changes")
  })

  it("keeps the dictated palette and the VS Code setting as identifiers", () => {
    const identifiers = ["#8abeb7", "#b5bd68", "terminal.integrated.minimumContrastRatio", "EditorTheme", "TS2305"]
    for (const identifier of identifiers) expectFact(trace, ["identifier"], identifier)
    expectFact(trace, ["constraint"], "invalid themes must NEVER explode")
  })

  it("records the failing publish with its TS2305 line and leaves the release episode failing", () => {
    expectFact(trace, ["failure"], "npm run publish → src/theme/theme.ts(5,15): error TS2305")
    expectFact(trace, ["failure"], "has no exported member 'EditorTheme'")
    expectFact(trace, ["identifier"], "v0.8.0")
    expectFact(trace, ["rejected_alternative"], "user: yeah you can undo that, it was actually the console.logs")
  })
})

describe("claude-code (opus implementing spotter-gqc)", () => {
  const trace = "traces/raw/claudecode-opus46-spotter-gqc.jsonl"

  it("records the unsupported SQLite ALTER TABLE and its rewrite", () => {
    const choices: FactKind[] = ["rejected_alternative", "decision"]
    expectFact(trace, choices, "The auto-generated migration uses `ALTER TABLE ... modify` which SQLite doesn't support")
    expectFact(trace, choices, "I need to rewrite it with a SQLite-safe table rewrite pattern.")
    expectFact(trace, ["identifier"], "ALTER TABLE ... modify")
  })

  it("keeps the commands that mattered and the push failure", () => {
    expectFact(trace, ["identifier"], "mix compile --force")
    expectFact(trace, ["identifier"], "git push --set-upstream origin spotter-gqc")
    expectFact(trace, ["failure"], "fatal: The current branch spotter-gqc has no upstream branch.")
    expectFact(trace, ["failure"], "no :secret_key_base configuration found")
    expectFact(trace, ["decision"], "I need to use `:auto` mode.")
  })

  it("records the compaction summary and task notifications as notices, not as the user's words", () => {
    expectFact(trace, ["incidental"], "notice: This session is being continued from a previous conversation")
    expectFact(trace, ["incidental"], "notice: <task-notification> | <task-id>bd0afab</task-id>")
    const userWords = factTexts(trace, "constraint").filter((text) => !text.startsWith(SPEC_PREFIX))
    expect(userWords).toEqual(["Implement spotter-gqc"])
  })

  it("pins the constraints the task specs list, marked as the spec's", () => {
    expectFact(trace, ["constraint"], `${SPEC_PREFIX}One-time token + TTL required for safety and deterministic startup behavior.`)
    expectFact(trace, ["constraint"], `${SPEC_PREFIX}No temp-file context handoff.`)
    expectFact(trace, ["constraint"], `${SPEC_PREFIX}Use Ash resources and SQLite migrations; no ad-hoc SQL outside migrations.`)
  })
})

describe("openhands #2 (llama-4 on ponyc-4588)", () => {
  const trace = "traces/raw/openhands-llama4-ponyc.jsonl#2"

  it("keeps the file, the function and the cmake flag that worked", () => {
    expectFact(trace, ["identifier"], "src/libponyc/expr/match.c")
    expectFact(trace, ["identifier"], "set_cap_and_ephemeral")
    expectFact(trace, ["identifier"], "cmake -DLLVM_DIR=/usr/lib/llvm-14/cmake")
    expectFact(trace, ["location"], "src/libponyc/expr/match.c:317")
  })

  it("records the failed edits, the build failures and the missing package", () => {
    expectFact(trace, ["failure"], "Multiple occurrences of old_str `return pattern_type;` in lines [317, 449]")
    expectFact(trace, ["failure"], "Error: could not load cache")
    expectFact(trace, ["failure"], "E: Unable to locate package libgtest-dev")
    expectFact(trace, ["rejected_alternative"], "Let's try to install `llvm-14-dev` instead of `llvm-dev`.")
    expectFact(trace, ["rejected_alternative"], "environment variable is not being picked up by the CMake command")
  })

  it("ends failing on the missing GTest package", () => {
    const last = episodesOf(trace).at(-1)
    expect(last?.record.outcome).toBe(
      "failed: run apt-get install -y libgtest-dev → E: Unable to locate package libgtest-dev",
    )
  })
})

describe("swe-agent (gpt-4 on pydicom-1458)", () => {
  const trace = "traces/raw/sweagent-gpt4-pydicom-1458.traj"

  it("keeps the handler path, the edit ranges and the raise site", () => {
    expectFact(trace, ["identifier"], "pydicom/pixel_data_handlers/numpy_handler.py")
    expectFact(trace, ["identifier"], "edit 287:296")
    expectFact(trace, ["location"], "pydicom/pixel_data_handlers/numpy_handler.py:287-296")
    expectFact(trace, ["location"], "pydicom/pixel_data_handlers/numpy_handler.py:293")
  })

  it("records the reproduction and the lint rejections verbatim", () => {
    expectFact(trace, ["failure"], "python reproduce_bug.py → Traceback (most recent call last): | AttributeError:")
    expectFact(trace, ["failure"], "edit 287:295 → - E999 SyntaxError: unmatched ')'")
    expectFact(trace, ["failure"], "edit 287:295 → - E999 SyntaxError: unmatched ']'")
    expectFact(trace, ["decision"], "We need to modify this check to exclude 'PixelRepresentation'")
  })

  it("keeps the task's directives but not code from the demonstration", () => {
    expectFact(trace, ["constraint"], "Remember, YOU CAN ONLY ENTER ONE COMMAND AT A TIME.")
    expect(factTexts(trace, "constraint").filter((text) => /^\d+:/.test(text))).toEqual([])
  })
})

describe("opencode (recorded slugify session)", () => {
  const trace = "opencode-session/session.json"

  it("pins the user's constraint and records the failing test and the root cause", () => {
    expectFact(trace, ["constraint"], "Constraint: do not change the public API of src/slugify.js")
    expectFact(trace, ["failure"], "bash node test/slugify.test.js → AssertionError [ERR_ASSERTION]")
    expectFact(trace, ["decision"], "Root cause: slugify never lower-cased its input")
  })

  it("anchors the first episode with its invariant", () => {
    const first = episodesOf(trace)[0]
    expect(first?.tiers.anchor).toContain(
      "; invariant: Constraint: do not change the public API of src/slugify.js; entities: slugify.js",
    )
  })
})
