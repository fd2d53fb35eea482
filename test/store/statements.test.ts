import { afterEach, beforeEach, describe, expect, it } from "vitest"
import { openNodeDatabase } from "../../src/store/driver-node.js"
import type { Database } from "../../src/store/driver.js"
import { statement } from "../../src/store/statements.js"

describe("statement", () => {
  let first: Database
  let second: Database

  beforeEach(() => {
    first = openNodeDatabase(":memory:")
    second = openNodeDatabase(":memory:")
  })

  afterEach(() => {
    first.close()
    second.close()
  })

  it("prepares a statement once per connection and SQL text", () => {
    const prepared = statement(first, "SELECT 1 AS one")
    expect(statement(first, "SELECT 1 AS one")).toBe(prepared)
    expect(statement(first, "SELECT 2 AS two")).not.toBe(prepared)
    expect(statement(second, "SELECT 1 AS one")).not.toBe(prepared)
    expect(prepared.get()).toEqual({ one: 1 })
  })
})
