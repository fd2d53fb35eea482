import { describe, expect, it } from "vitest"
import { skippedInputLines } from "../../src/transcript/skipped-records.js"

describe("skippedInputLines", () => {
  it("names every skipped type with its count, sorted, and the total", () => {
    expect(skippedInputLines("s.jsonl", { skippedRecords: { mode: 1, "ai-title": 2 } })).toEqual([
      "s.jsonl: 3 records of a type the importer does not read, skipped: ai-title (2), mode (1)",
    ])
  })

  it("says how many lines before the transcript were not JSON, quoting the first", () => {
    expect(skippedInputLines("e.json", { skippedLeadingLines: ["Exporting session: ses_4f2a"] })).toEqual([
      'e.json: 1 line before the transcript that is not JSON, skipped (first: "Exporting session: ses_4f2a")',
    ])
    const long = `warning: ${"x".repeat(80)}`
    const [line] = skippedInputLines("e.json", { skippedLeadingLines: [long, "second"] })
    expect(line).toContain("2 lines before the transcript that are not JSON")
    expect(line).toContain(`"${long.slice(0, 59)}…"`)
  })

  it("says nothing when nothing was skipped", () => {
    expect(skippedInputLines("s.jsonl", {})).toEqual([])
    expect(skippedInputLines("s.jsonl", { skippedRecords: {}, skippedLeadingLines: [] })).toEqual([])
  })
})
