import { describe, expect, it } from "vitest"
import { lineDiff } from "../../src/cli/line-diff.js"

describe("lineDiff", () => {
  it("marks removed and added lines with up to two unchanged lines of context, and @@ where it skips", () => {
    const before = ["a", "b", "c", "d", "e", "f", "g", "h", "j", "k"].join("\n")
    const after = ["a", "b", "c", "D", "e", "f", "g", "h", "j", "k", "i"].join("\n")
    expect(lineDiff({ file: "x.json", before, after })).toEqual([
      "--- x.json",
      "+++ x.json",
      "@@",
      " b",
      " c",
      "-d",
      "+D",
      " e",
      " f",
      "@@",
      " j",
      " k",
      "+i",
    ])
  })

  it("shows a new file against /dev/null, every line added", () => {
    expect(lineDiff({ file: "new.jsonc", before: null, after: "{\n}\n" })).toEqual(["--- /dev/null", "+++ new.jsonc", "+{", "+}"])
  })

  it("prints only the header when nothing changed", () => {
    expect(lineDiff({ file: "x", before: "a\nb\n", after: "a\nb\n" })).toEqual(["--- x", "+++ x"])
  })
})
