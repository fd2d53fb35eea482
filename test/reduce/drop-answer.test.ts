import { describe, expect, it } from "vitest"
import { MAX_TAGS_PER_CALL, parseDropRanges } from "../../src/reduce/parse-drop-ranges.js"
import { MAX_TOOL_ANSWER_CHARS } from "../../src/reduce/answer-bounds.js"
import type { DropClassification } from "../../src/reduce/classify-drop-request.js"
import {
  formatDropAnswer,
  judgeDropRequest,
  MAX_REDUCE_CALLS_PER_TURN,
  MIN_REDUCE_TOKENS,
  type LandingOutlook,
} from "../../src/reduce/drop-answer.js"

const classification = (overrides: Partial<DropClassification> = {}): DropClassification => ({
  queued: [],
  deferred: [],
  rejected: [],
  ...overrides,
})

const read = (tag: number, tokens: number) => ({ tag, tokens, label: "read output" })

const ABOVE: LandingOutlook = { usagePercent: 72.4, thresholdPercent: 65, cacheTtlMinutes: 5 }
const BELOW: LandingOutlook = { usagePercent: 40.6, thresholdPercent: 65, cacheTtlMinutes: 5 }

describe("judgeDropRequest", () => {
  it("allows three calls per turn and refuses the fourth", () => {
    expect(MAX_REDUCE_CALLS_PER_TURN).toBe(3)
    const call = classification({ queued: [read(3, 2_000)] })
    for (const callsThisTurn of [0, 1, 2]) {
      expect(judgeDropRequest({ classification: call, callsThisTurn })).toEqual({
        kind: "accepted",
        queue: [3],
        classification: call,
      })
    }
    expect(judgeDropRequest({ classification: call, callsThisTurn: 3 })).toEqual({
      kind: "refused",
      reason:
        "ctx_reduce was already called 3 times this turn. Drops you queued land at the next execute pass; " +
        "do not call it again now, continue with the task.",
    })
    expect(judgeDropRequest({ classification: call, callsThisTurn: 7 })).toMatchObject({
      kind: "refused",
      reason: expect.stringContaining("already called 7 times this turn"),
    })
  })

  it.each([
    [[read(3, 499)], [], true],
    [[read(3, 250)], [read(4, 249)], true],
    [[read(3, 500)], [], false],
    [[], [read(4, 500)], false],
    [[read(3, 250)], [read(4, 250)], false],
  ])("refuses calls under 500 tokens (queued %j, deferred %j: %s)", (queued, deferred, refused) => {
    expect(MIN_REDUCE_TOKENS).toBe(500)
    const verdict = judgeDropRequest({ classification: classification({ queued, deferred }), callsThisTurn: 0 })
    expect(verdict.kind).toBe(refused ? "refused" : "accepted")
  })

  it("names the tokens of a refused small call", () => {
    const small = classification({ queued: [read(3, 120)], deferred: [read(4, 80)] })
    expect(judgeDropRequest({ classification: small, callsThisTurn: 0 })).toEqual({
      kind: "refused",
      reason:
        "the named tags hold only 200 tokens, not worth rewriting the prompt for (minimum 500). Drop larger finished " +
        "outputs (file reads, long command output) instead.",
    })
  })

  it("accepts a call whose every tag was rejected, queueing nothing", () => {
    const call = classification({ rejected: [{ tag: 1, reason: "already dropped" }] })
    expect(judgeDropRequest({ classification: call, callsThisTurn: 0 })).toEqual({
      kind: "accepted",
      queue: [],
      classification: call,
    })
  })

  it("queues the deferred tags with the queued ones", () => {
    const call = classification({ queued: [read(3, 400), read(5, 400)], deferred: [read(9, 400)] })
    expect(judgeDropRequest({ classification: call, callsThisTurn: 0 })).toMatchObject({ queue: [3, 5, 9] })
  })
})

describe("formatDropAnswer", () => {
  const accepted = (call: DropClassification) => judgeDropRequest({ classification: call, callsThisTurn: 0 })

  it("says a refusal in one line", () => {
    const verdict = judgeDropRequest({ classification: classification({ queued: [read(3, 10)] }), callsThisTurn: 0 })
    expect(formatDropAnswer({ verdict, notes: ["listed more than once (counted once): 3"], outlook: ABOVE })).toBe(
      "Refused: the named tags hold only 10 tokens, not worth rewriting the prompt for (minimum 500). Drop larger " +
        "finished outputs (file reads, long command output) instead.",
    )
  })

  it("says in one line that queued drops land on the next model call above the threshold", () => {
    const verdict = accepted(classification({ queued: [read(3, 1_200), read(4, 800), read(5, 34), read(8, 2_000)] }))
    expect(formatDropAnswer({ verdict, notes: [], outlook: ABOVE })).toBe(
      "Queued 4 drops (§3-5§, §8§, ~4,034 tokens); usage is 72% of the window, at or above the 65% execute " +
        "threshold: they land on the next model call.",
    )
  })

  it("says in one line when queued drops land below the threshold", () => {
    const verdict = accepted(classification({ queued: [read(12, 900)] }))
    expect(formatDropAnswer({ verdict, notes: [], outlook: BELOW })).toBe(
      "Queued 1 drop (§12§, ~900 tokens); usage is 41% of the window: they land at the next execute pass (at 65% " +
        "or after 5 idle minutes).",
    )
  })

  it("takes usage at exactly the threshold as above it", () => {
    const verdict = accepted(classification({ queued: [read(12, 900)] }))
    expect(formatDropAnswer({ verdict, notes: [], outlook: { ...BELOW, usagePercent: 65 } })).toContain(
      "usage is 65% of the window, at or above the 65% execute threshold: they land on the next model call.",
    )
  })

  it("explains deferred and rejected tags and passes the notes on", () => {
    const verdict = accepted(
      classification({
        queued: [read(3, 700)],
        deferred: [read(20, 300), read(21, 300)],
        rejected: [
          { tag: 1, reason: "the user's own message: user messages are never dropped" },
          { tag: 99, reason: "no such tag in this session (tags in this session run from 1 to 21)" },
        ],
      }),
    )
    expect(formatDropAnswer({ verdict, notes: ["listed more than once (counted once): 3"], outlook: ABOVE })).toBe(
      [
        "Queued 1 drop (§3§, ~700 tokens); usage is 72% of the window, at or above the 65% execute threshold: " +
          "they land on the next model call.",
        "Deferred 2 drops (§20-21§, ~600 tokens): still in the protected recent window; they land once newer work " +
          "has moved the window past them.",
        "Rejected §1§: the user's own message: user messages are never dropped.",
        "Rejected §99§: no such tag in this session (tags in this session run from 1 to 21).",
        "Note: listed more than once (counted once): 3.",
      ].join("\n"),
    )
  })

  it("says nothing was queued when every tag was rejected", () => {
    const verdict = accepted(classification({ rejected: [{ tag: 7, reason: "already dropped" }] }))
    expect(formatDropAnswer({ verdict, notes: [], outlook: BELOW })).toBe(
      "Rejected §7§: already dropped.\nNothing was queued.",
    )
  })

  it("says when only deferred drops were taken, without a landing time", () => {
    const verdict = accepted(classification({ deferred: [read(30, 5_000)] }))
    expect(formatDropAnswer({ verdict, notes: [], outlook: ABOVE })).toBe(
      "Deferred 1 drop (§30§, ~5,000 tokens): still in the protected recent window; they land once newer " +
        "work has moved the window past them.",
    )
  })

  it("groups rejected tags by reason, in the order of each reason's first tag", () => {
    const verdict = accepted(
      classification({
        rejected: [
          { tag: 2, reason: "already dropped" },
          { tag: 3, reason: "already queued" },
          { tag: 4, reason: "already dropped" },
          { tag: 5, reason: "already dropped" },
          { tag: 9, reason: "already queued" },
        ],
      }),
    )
    expect(formatDropAnswer({ verdict, notes: [], outlook: BELOW })).toBe(
      ["Rejected §2§, §4-5§: already dropped.", "Rejected §3§, §9§: already queued.", "Nothing was queued."].join("\n"),
    )
  })

  it("answers 333 unknown tags in one line that names a few and counts the rest", () => {
    const reason = "no such tag in this session (tags in this session run from 1 to 40)"
    const unknown = Array.from({ length: 333 }, (_, index) => ({ tag: 1_000 + 2 * index, reason }))
    const answer = formatDropAnswer({ verdict: accepted(classification({ rejected: unknown })), notes: [], outlook: BELOW })
    expect(answer).toBe(
      `Rejected 333 tags (§1000§, §1002§, §1004§, §1006§, §1008§, §1010§ and 327 more tags): ${reason}.\nNothing was queued.`,
    )
  })

  it("stays under MAX_TOOL_ANSWER_CHARS with every list at its longest and every reason at once", () => {
    // Tags as large as a tag can be, none adjacent, so no list folds into ranges.
    const spread = (offset: number) => Array.from({ length: MAX_TAGS_PER_CALL }, (_, index) => Number.MAX_SAFE_INTEGER - 2 * index - offset)
    const reasons = [
      "no such tag in this session (tags in this session run from 1 to 9007199254740991)",
      "already dropped",
      "already queued",
      "not in the current context any more (OpenCode's compaction summarized it)",
      "the user's own message: user messages are never dropped",
      "its tool call is still waiting for its result",
    ]
    const duplicates = parseDropRanges([...spread(0).slice(0, 250), ...spread(0).slice(0, 250)].join(","))
    expect(duplicates.ok).toBe(true)
    const verdict = accepted(
      classification({
        queued: spread(0).map((tag) => read(tag, 1_000_000_000)),
        deferred: spread(1).map((tag) => read(tag, 1_000_000_000)),
        rejected: reasons.flatMap((reason, index) => spread(2 + index).map((tag) => ({ tag, reason }))),
      }),
    )
    const answer = formatDropAnswer({
      verdict,
      notes: duplicates.ok ? duplicates.value.notes : [],
      outlook: { usagePercent: 99.9, thresholdPercent: 92, cacheTtlMinutes: 1_000_000 },
    })
    expect(answer.split("\n")).toHaveLength(9)
    expect(answer.length).toBeLessThanOrEqual(MAX_TOOL_ANSWER_CHARS)
  })
})
