import { readFileSync } from "node:fs"
import { join } from "node:path"
import { afterEach, describe, expect, it } from "vitest"
import { createTempDirs } from "../helpers/temp-dirs.js"
import { recordFaultTally } from "./fault-table.js"

const dirs = createTempDirs()
afterEach(() => dirs.cleanup())

describe("recordFaultTally", () => {
  it("appends one JSON line per tally to the file the fault run names", () => {
    const file = join(dirs.make("table"), "table.jsonl")
    recordFaultTally({ probe: "a", tried: 3, survived: 3, lost: 0 }, { MAGIC_CONTEXT_FAULT_TABLE: file })
    recordFaultTally({ probe: "b", tried: 2, survived: 1, lost: 1 }, { MAGIC_CONTEXT_FAULT_TABLE: file })
    expect(readFileSync(file, "utf8")).toBe(
      '{"probe":"a","tried":3,"survived":3,"lost":0}\n{"probe":"b","tried":2,"survived":1,"lost":1}\n',
    )
  })

  it("writes nothing without the variable (a plain npm test)", () => {
    expect(() => recordFaultTally({ probe: "a", tried: 1, survived: 1, lost: 0 }, {})).not.toThrow()
  })
})
