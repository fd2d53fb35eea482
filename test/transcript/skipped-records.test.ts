import { describe, expect, it } from "vitest"
import { skippedRecordsLine } from "../../src/transcript/skipped-records.js"

describe("skippedRecordsLine", () => {
  it("names every skipped type with its count, sorted, and the total", () => {
    expect(skippedRecordsLine("s.jsonl", { skippedRecords: { mode: 1, "ai-title": 2 } })).toBe(
      "s.jsonl: 3 records of a type the importer does not read, skipped: ai-title (2), mode (1)",
    )
  })

  it("says nothing when nothing was skipped", () => {
    expect(skippedRecordsLine("s.jsonl", {})).toBeNull()
    expect(skippedRecordsLine("s.jsonl", { skippedRecords: {} })).toBeNull()
  })
})
