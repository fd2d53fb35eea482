import { describe, expect, it } from "vitest"
import { formatTable } from "../../src/report/format-table.js"

describe("formatTable", () => {
  it("pads text columns right and number columns left, with a dashed rule under the header", () => {
    expect(
      formatTable(
        ["name", "count", "note"],
        [
          ["alpha", 5, "x"],
          ["b", 1234, ""],
        ],
      ),
    ).toEqual(["name   count  note", "-----  -----  ----", "alpha      5  x", "b       1234"])
  })

  it("left-aligns a column that mixes numbers and text", () => {
    expect(formatTable(["v"], [[1], ["-"], [22]])).toEqual(["v", "--", "1", "-", "22"])
  })

  it("prints only the header and rule without rows", () => {
    expect(formatTable(["a", "bb"], [])).toEqual(["a  bb", "-  --"])
  })
})
