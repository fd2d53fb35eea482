import { describe, expect, it } from "vitest"
import { extractCanonicalRecord } from "../../src/historian/canonical-record.js"
import { isPlanSentence, MAX_REASONING_PLANS, reasoningPlans } from "../../src/historian/reasoning-plans.js"
import { renderTiers } from "../../src/historian/render-tiers.js"
import type { SentenceSource } from "../../src/historian/sentence-facts.js"
import { recognizersWithout } from "../../src/session/recognizers.js"
import type { HostMessage } from "../../src/transcript/host-message.js"
import { assistantMessage, reasoning, text, userMessage } from "../helpers/host-messages.js"
import { tagMessages } from "./trace-episodes.js"

const source = (body: string): SentenceSource => ({ text: body, ref: { tag: 3, messageId: "a1" }, isLastText: false })

/** Reasoning as a model writes it before a multi-step change: a heading, thoughts, then the plan in one sentence. */
const MIGRATION_THINKING = [
  "**Sequencing the schema change**",
  "",
  "The reader still selects `legacy_status` directly, and the nightly export joins on it. If I drop the column now the export breaks tonight.",
  "So I'll add `status` with a default first, then backfill it in batches of 500 rows, and only after that switch the reader and the export over.",
  "The old column can go in a later release.",
].join("\n")

describe("reasoning-plans", () => {
  it("takes intent laid out in order from the reasoning, marked as reasoning", () => {
    const plans = reasoningPlans([source(MIGRATION_THINKING)], [source("Adding the column now.")])
    expect(plans).toEqual([
      {
        kind: "decision",
        text:
          "(reasoning) plan: So I'll add `status` with a default first, then backfill it in batches of 500 rows, and only after that switch the reader and the export over.",
        refs: [{ tag: 3, messageId: "a1" }],
      },
    ])
  })

  it("takes an announced plan with the steps listed below it", () => {
    const thinking = "Okay, plan:\n1. Key the feed cache by locale as well.\n2. Drop the TTL to 900 seconds.\n3. Re-run the feed tests.\n\nStart with the cache key."
    expect(reasoningPlans([source(thinking)], []).map((plan) => plan.text)).toEqual([
      "(reasoning) plan: Okay, plan: Key the feed cache by locale as well. Drop the TTL to 900 seconds. Re-run the feed tests.",
    ])
  })

  it("leaves the plan to the answer when the answer states one", () => {
    const answer = "I'll update the parser first and then run the integration tests."
    expect(reasoningPlans([source(MIGRATION_THINKING)], [source(answer)])).toEqual([])
  })

  it("keeps the latest plans only", () => {
    const thinking = [1, 2, 3].map((round) => `Round ${round}: I'll rebuild the index first, then rerun query ${round}.`).join("\n\n")
    const plans = reasoningPlans([source(thinking)], [])
    expect(plans).toHaveLength(MAX_REASONING_PLANS)
    expect(plans.map((plan) => plan.text)).toEqual([
      "(reasoning) plan: Round 2: I'll rebuild the index first, then rerun query 2.",
      "(reasoning) plan: Round 3: I'll rebuild the index first, then rerun query 3.",
    ])
  })

  it.each([
    "I'll add the column first, then backfill it.",
    "Let's write the failing test first and then fix the parser.",
    "Plan: move the retry into the client.",
    "Here's my plan — split the job by entity.",
    "We need to migrate the data before we switch the reader over, then delete the old table.",
  ])("recognizes: %s", (sentence) => {
    expect(isPlanSentence(sentence)).toBe(true)
  })

  it.each([
    "Let me check the config first, then the tests.",
    "Should I run the migration first?",
    "If the backfill is slow, then I'll batch it.",
    "The job first reads the invoices, then adds the adjustments.",
    "I'll switch to the streaming parser, then measure.",
    "I'll read the file.",
  ])("leaves alone: %s", (sentence) => {
    expect(isPlanSentence(sentence)).toBe(false)
  })

  it("is in the canonical record and in COMPACT as a decision, and only with the rule on", () => {
    const messages: HostMessage[] = [
      userMessage({ id: "u1", parts: [text("u1-t", "Rename the status column without breaking the nightly export.")] }),
      assistantMessage({ id: "a1", parts: [reasoning("a1-r", MIGRATION_THINKING), text("a1-t", "Starting with the schema.")] }),
    ]
    const read = (recognizers?: ReturnType<typeof recognizersWithout>) =>
      extractCanonicalRecord({ compartmentId: "c1", messages, tagOf: tagMessages(messages), ...(recognizers ? { recognizers } : {}) })
    const record = read()
    const plan = record.facts.find((fact) => fact.text.startsWith("(reasoning) plan: "))
    expect(plan?.kind).toBe("decision")
    expect(renderTiers(record).compact).toContain("only after that switch the reader and the export over")
    expect(read(recognizersWithout(["reasoning-plans"])).facts.some((fact) => fact.text.startsWith("(reasoning) plan: "))).toBe(false)
  })
})
