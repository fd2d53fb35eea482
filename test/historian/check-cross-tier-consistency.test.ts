import { describe, expect, it } from "vitest"
import { extractCanonicalRecord, type CanonicalRecord } from "../../src/historian/canonical-record.js"
import { checkCrossTierConsistency } from "../../src/historian/check-cross-tier-consistency.js"
import { renderTiers } from "../../src/historian/render-tiers.js"
import { assistantMessage, failed, text, tool, userMessage } from "../helpers/host-messages.js"
import { tagMessages } from "./trace-episodes.js"

function episodeRecord(): CanonicalRecord {
  const messages = [
    userMessage({ id: "u1", parts: [text("u1-t", "publish it; never log to the console")] }),
    assistantMessage({
      id: "a1",
      parts: [
        text("a1-t", "I'll use the v2 client because v1 is deprecated."),
        tool(
          "a1-x",
          "bash",
          failed({ command: "npm run publish" }, "src/theme.ts(5,15): error TS2305: no 'EditorTheme'"),
        ),
      ],
    }),
  ]
  return extractCanonicalRecord({ compartmentId: "c3", messages, tagOf: tagMessages(messages) })
}

describe("checkCrossTierConsistency", () => {
  it("finds nothing in the canonical record's own tiers", () => {
    const record = episodeRecord()
    expect(checkCrossTierConsistency(renderTiers(record), record)).toEqual([])
  })

  it("flags a fact a lower tier shows but a higher tier lost", () => {
    const record = episodeRecord()
    const tiers = {
      full: "[c3] The publish failed.",
      dense: null,
      compact: "[c3] Decision: I'll use the v2 client because v1 is deprecated.",
      anchor: "[c3] publish failed",
    }
    expect(checkCrossTierConsistency(tiers, record)).toEqual([
      {
        kind: "missing-in-higher",
        tier: "full",
        detail: `decision "I'll use the v2 client because v1 is deprecated." is in compact but not in full`,
      },
    ])
  })

  it("recognises a fact a model paraphrased by the identifiers it names", () => {
    const record = episodeRecord()
    const tiers = {
      full: "[c3] Publishing failed in src/theme.ts with TS2305 (EditorTheme missing), via npm run publish.",
      dense: "[c3] npm run publish failed: TS2305 on EditorTheme in src/theme.ts.",
      compact: null,
      anchor: "[c3] publish failed (TS2305)",
    }
    const problems = checkCrossTierConsistency(tiers, record)
    expect(problems.filter((problem) => problem.kind === "missing-in-higher")).toEqual([])
  })

  it("flags an identifier the record does not hold", () => {
    const record = episodeRecord()
    const compact = "[c3] fixed in src/theme.ts and src/invented.ts at v9.9.9"
    const tiers = { full: null, dense: null, compact, anchor: "[c3]" }
    expect(checkCrossTierConsistency(tiers, record)).toEqual([
      { kind: "identifier-mismatch", tier: "compact", detail: '"src/invented.ts" is not in the record of c3' },
      { kind: "identifier-mismatch", tier: "compact", detail: '"v9.9.9" is not in the record of c3' },
    ])
  })

  it("does not require a constraint quoted by the anchor in the higher tiers (the pinned ledger holds it)", () => {
    const record = episodeRecord()
    const anchor = "[c3] invariant: publish it; never log to the console"
    const tiers = { full: "[c3] publish", dense: "[c3] publish", compact: null, anchor }
    expect(checkCrossTierConsistency(tiers, record)).toEqual([])
  })
})
