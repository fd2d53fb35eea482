import { describe, expect, it } from "vitest"
import { extractCanonicalRecord } from "../../src/historian/canonical-record.js"
import { checkCrossTierConsistency } from "../../src/historian/check-cross-tier-consistency.js"
import {
  codeNames,
  designScore,
  MAX_DESIGN_CHARS,
  MAX_REASONING_DESIGNS,
  reasoningDesigns,
  type CallText,
} from "../../src/historian/reasoning-design.js"
import { renderTiers } from "../../src/historian/render-tiers.js"
import type { SentenceSource } from "../../src/historian/sentence-facts.js"
import { recognizersWithout } from "../../src/session/recognizers.js"
import type { HostMessage } from "../../src/transcript/host-message.js"
import { assistantMessage, completed, reasoning, text, tool, userMessage } from "../helpers/host-messages.js"
import { tagMessages } from "./trace-episodes.js"

const source = (body: string, tag = 3): SentenceSource => ({ text: body, ref: { tag, messageId: "a1" }, isLastText: false })
const nothingTaken = (): boolean => false
const designs = (reasoningText: string, calls: CallText[]): string[] =>
  reasoningDesigns({ reasoning: [source(reasoningText)], calls, taken: nothingTaken }).map((fact) => fact.text)

/** A schema worked out in reasoning: the table, its columns and its unique key; the migration then writes it. */
const SCHEMA_THINKING = [
  "**Modelling the waitlist**",
  "",
  "Members join a waitlist per class session and get promoted in order when someone cancels.",
  "`waitlist_entries` holds `session_id`, `member_id`, `position` and `joined_at`, unique on (session_id, member_id), and the position comes from the current max at insert time.",
  "Promotion just takes the lowest position.",
].join("\n")

const SCHEMA_MIGRATION = [
  "CREATE TABLE waitlist_entries (",
  "  id INTEGER PRIMARY KEY,",
  "  session_id INTEGER NOT NULL REFERENCES class_sessions(id),",
  "  member_id INTEGER NOT NULL REFERENCES members(id),",
  "  position INTEGER NOT NULL,",
  "  joined_at TEXT NOT NULL,",
  "  UNIQUE (session_id, member_id)",
  ");",
].join("\n")

/** A lock built from a row, stated only in reasoning; the worker's edit then carries it out. */
const LEASE_THINKING =
  "Two workers can both read a payout as pending. The row can be its own lease: one UPDATE sets `leased_by` and `lease_expires_at` where `lease_expires_at` is null or past, and only the worker whose UPDATE changed a row sends the payout."

const LEASE_EDIT: CallText = {
  added: [
    "const claimed = await db.query(",
    "  `UPDATE payouts SET leased_by = $1, lease_expires_at = now() + interval '5 minutes'",
    "   WHERE id = $2 AND (lease_expires_at IS NULL OR lease_expires_at < now())`,",
    "  [workerId, payout.id],",
    ")",
    "if (claimed.rowCount === 0) return",
  ].join("\n"),
  removed: "if (payout.status !== \"pending\") return",
  output: "Edit applied successfully.",
  after: 1,
}

/** A function's contract, decided in reasoning, then written as the module and its test. */
const CONTRACT_THINKING =
  "`takeTokens(bucketKey, cost)` returns the tokens left after taking `cost`, or -1 without touching the bucket when the cost does not fit; callers never see a negative balance."

describe("reasoningDesigns", () => {
  it("keeps a table's columns and unique key that the migration then writes", () => {
    expect(designs(SCHEMA_THINKING, [{ added: SCHEMA_MIGRATION, removed: "", output: "", after: 1 }])).toEqual([
      "(reasoning) design: `waitlist_entries` holds `session_id`, `member_id`, `position` and `joined_at`, unique on (session_id, member_id), and the position comes from the current max at insert time.",
    ])
  })

  it("keeps a lock built from a row that the edit then carries out", () => {
    expect(designs(LEASE_THINKING, [LEASE_EDIT])).toEqual([
      "(reasoning) design: The row can be its own lease: one UPDATE sets `leased_by` and `lease_expires_at` where `lease_expires_at` is null or past, and only the worker whose UPDATE changed a row sends the payout.",
    ])
  })

  it("keeps a function's contract that the written module and a command then use", () => {
    const module = "export function takeTokens(bucketKey: string, cost: number): number {\n  const left = balance(bucketKey) - cost\n  return left < 0 ? -1 : settle(bucketKey, left)\n}"
    const work: CallText[] = [
      { added: module, removed: "", output: "", after: 1 },
      { added: "npx vitest run test/take-tokens.test.ts", removed: "", output: "", after: 1 },
    ]
    expect(designs(CONTRACT_THINKING, work)).toEqual([`(reasoning) design: ${CONTRACT_THINKING}`])
  })

  it("reads a heredoc a read-only program writes through as work", () => {
    const heredoc = `cat > migrations/0007_waitlist.sql <<'SQL'\n${SCHEMA_MIGRATION}\nSQL`
    expect(designs(SCHEMA_THINKING, [{ added: heredoc, removed: "", output: "", after: 1 }])).toHaveLength(1)
  })

  it.each([
    ["only one of its names recurs", "The `legacy_export` job still reads the old table; nothing to do there.", "legacy_export(rows)"],
    ["its names are plain words", "Keep `status` and `position` as they are.", "status = 1\nposition = 2"],
    ["it looks around before the work", "Let me check `session_id` and `member_id` in the old schema first.", SCHEMA_MIGRATION],
    ["it asks", "Does `waitlist_entries` need `joined_at` at all?", SCHEMA_MIGRATION],
    ["it announces the next call", "Let me run `mix ecto.gen.migration add_waitlist_entries` to get the file.", "mix ecto.gen.migration add_waitlist_entries"],
  ])("leaves a sentence alone when %s", (_, sentence, added) => {
    expect(designs(sentence, [{ added, removed: "", output: "", after: 1 }])).toEqual([])
  })

  it("leaves alone a sentence whose names the edit finds already there rather than adds", () => {
    // Identifiers recurring by chance: the edit rewrites a line around names the code already had.
    const sentence = "The retry loop logs `attempt_count` and `last_error_at` on every pass, which is noisy."
    const edit: CallText = {
      added: "if (attempt_count > 3) logger.warn({ attempt_count, last_error_at })",
      removed: "logger.info({ attempt_count, last_error_at })",
      output: "",
      after: 1,
    }
    expect(designs(sentence, [edit])).toEqual([])
  })

  it("leaves alone a sentence about code the episode read before it, though a new file then uses the same names", () => {
    const observation = "The existing tests build requests with `ConnCase.build_conn` and `Fixtures.member_fixture`."
    const read: CallText = { added: "", removed: "", output: "use MyApp.ConnCase\nconn = ConnCase.build_conn()\nmember = Fixtures.member_fixture()", after: 0 }
    const test: CallText = { added: "conn = ConnCase.build_conn()\nmember = Fixtures.member_fixture(%{plan: :gold})", removed: "", output: "", after: 1 }
    expect(designs(observation, [read, test])).toEqual([])
    expect(designs(observation, [test])).toHaveLength(1)
  })

  it("leaves alone what the reasoning says after the work: a recap", () => {
    expect(designs(SCHEMA_THINKING, [{ added: SCHEMA_MIGRATION, removed: "", output: "", after: 0 }])).toEqual([])
  })

  it("leaves alone the sentences other rules take", () => {
    const facts = reasoningDesigns({ reasoning: [source(SCHEMA_THINKING)], calls: [{ added: SCHEMA_MIGRATION, removed: "", output: "", after: 1 }], taken: () => true })
    expect(facts).toEqual([])
  })

  it("keeps the designs whose names the work uses most (the later of equals), at most a few, in the order said", () => {
    const thinking = [
      "`waitlist_entries` is keyed by `session_id` alone for now.",
      LEASE_THINKING,
      "The `waitlist_entries` row holds `session_id`, `member_id` and `joined_at`.",
    ].join("\n")
    const work: CallText[] = [{ added: SCHEMA_MIGRATION, removed: "", output: "", after: 1 }, LEASE_EDIT]
    const kept = designs(thinking, work)
    expect(kept).toHaveLength(MAX_REASONING_DESIGNS)
    expect(kept[0]).toContain("The row can be its own lease")
    expect(kept[1]).toContain("`member_id` and `joined_at`")
  })

  it("shortens a long design without cutting a name", () => {
    const long = `${"`waitlist_entries` holds `session_id` and `member_id`, ".repeat(8)}unique on both.`
    const [kept] = designs(long, [{ added: SCHEMA_MIGRATION, removed: "", output: "", after: 1 }])
    expect(kept?.length).toBeLessThanOrEqual("(reasoning) design: ".length + MAX_DESIGN_CHARS + 1)
    expect(kept).toMatch(/…$/)
    expect(((kept ?? "").match(/`/g) ?? []).length % 2).toBe(0)
  })
})

describe("codeNames", () => {
  it("splits a backticked expression and a column list into names, and marks called names as code", () => {
    expect(codeNames("Claim with `UPDATE jobs SET owner_id = ?` and retry via `withBackoff(fn)` from src/retry.ts.")).toEqual([
      { text: "UPDATE", shaped: false },
      { text: "jobs", shaped: false },
      { text: "SET", shaped: false },
      { text: "owner_id", shaped: true },
      { text: "withBackoff", shaped: true },
      { text: "src/retry.ts", shaped: true },
    ])
  })
})

describe("designScore", () => {
  it("counts the names new in the work twice", () => {
    const sentence = "`session_id` and `member_id` are the key."
    expect(designScore(sentence, { work: [{ added: SCHEMA_MIGRATION, removed: "" }], known: [] })).toBe(4)
    expect(designScore(sentence, { work: [{ added: SCHEMA_MIGRATION, removed: "member_id INTEGER" }], known: [] })).toBe(3)
    expect(designScore(sentence, { work: [{ added: SCHEMA_MIGRATION, removed: "" }], known: ["session_id member_id"] })).toBe(0)
  })
})

describe("reasoning-design in the canonical record", () => {
  const messages: HostMessage[] = [
    userMessage({ id: "u1", parts: [text("u1-t", "Members should be able to join a waitlist when a class is full.")] }),
    assistantMessage({
      id: "a1",
      parts: [
        reasoning("a1-r", SCHEMA_THINKING),
        tool("a1-w", "write", completed({ filePath: "migrations/0007_waitlist.sql", content: SCHEMA_MIGRATION }, "Wrote file successfully.")),
        text("a1-t", "Added the waitlist migration."),
      ],
    }),
  ]
  const read = (recognizers?: ReturnType<typeof recognizersWithout>) =>
    extractCanonicalRecord({ compartmentId: "c1", messages, tagOf: tagMessages(messages), ...(recognizers ? { recognizers } : {}) })

  it("is a decision marked as reasoning, in DENSE and COMPACT, and only with the rule on", () => {
    const record = read()
    const design = record.facts.find((fact) => fact.text.startsWith("(reasoning) design: "))
    expect(design?.kind).toBe("decision")
    const tiers = renderTiers(record)
    expect(tiers.dense).toContain("unique on (session_id, member_id)")
    expect(tiers.compact).toContain("(reasoning) design: `waitlist_entries` holds `session_id`, `member_id`")
    expect(checkCrossTierConsistency(tiers, record)).toEqual([])
    expect(read(recognizersWithout(["reasoning-design"])).facts.some((fact) => fact.text.includes("design: "))).toBe(false)
  })

  it("leaves a sentence to the rule that takes it, and to the answer that says it", () => {
    const episode = (thinking: string, answer: string): HostMessage[] => [
      messages[0] as HostMessage,
      assistantMessage({
        id: "a1",
        parts: [
          reasoning("a1-r", thinking),
          tool("a1-w", "write", completed({ filePath: "migrations/0007_waitlist.sql", content: SCHEMA_MIGRATION }, "Wrote file successfully.")),
          text("a1-t", answer),
        ],
      }),
    ]
    const factsOf = (episodeMessages: HostMessage[]) =>
      extractCanonicalRecord({ compartmentId: "c1", messages: episodeMessages, tagOf: tagMessages(episodeMessages) }).facts.map((fact) => fact.text)
    // A decision with its reason is kept by the decision patterns, once.
    const decided = "I'll key `waitlist_entries` by `session_id` and `member_id` because a member holds one place per session."
    const facts = factsOf(episode(decided, "Added the migration."))
    expect(facts.filter((fact) => fact.includes("`waitlist_entries` by `session_id`"))).toEqual([`(reasoning) ${decided}`])
    const stated = "`waitlist_entries` holds `session_id`, `member_id`, `position` and `joined_at`."
    expect(factsOf(episode(stated, `Added the migration. ${stated}`)).some((fact) => fact.includes("design: "))).toBe(false)
    expect(factsOf(episode(stated, "Added the migration.")).some((fact) => fact.includes("design: "))).toBe(true)
  })

  it("reads no search as work: names a grep looked for are no design", () => {
    const searched: HostMessage[] = [
      messages[0] as HostMessage,
      assistantMessage({
        id: "a1",
        parts: [
          reasoning("a1-r", SCHEMA_THINKING),
          tool("a1-g", "bash", completed({ command: "grep -rn 'session_id\\|member_id' src/waitlist" }, "src/waitlist/join.ts:4:  session_id,")),
          text("a1-t", "Both are already there."),
        ],
      }),
    ]
    const record = extractCanonicalRecord({ compartmentId: "c1", messages: searched, tagOf: tagMessages(searched) })
    expect(record.facts.some((fact) => fact.text.includes("design: "))).toBe(false)
  })

  it("takes no design from an episode with no reasoning in its source (a signed provider's)", () => {
    const withoutReasoning = messages.map((message) => ({ ...message, parts: message.parts.filter((part) => part.type !== "reasoning") }))
    const record = extractCanonicalRecord({ compartmentId: "c1", messages: withoutReasoning, tagOf: tagMessages(withoutReasoning) })
    expect(record.facts.some((fact) => fact.text.startsWith("(reasoning) "))).toBe(false)
  })
})
