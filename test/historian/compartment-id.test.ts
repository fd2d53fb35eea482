import { describe, expect, it } from "vitest"
import { compartmentDisplayId, compartmentStoreId, readCompartmentDisplayId } from "../../src/historian/compartment-id.js"

describe("compartment ids", () => {
  it("names an episode c<N> where it is shown and <session>#c<N> in the store", () => {
    expect(compartmentDisplayId(12)).toBe("c12")
    expect(compartmentStoreId("ses_1", 12)).toBe("ses_1#c12")
  })

  it.each([
    ["c12", "c12"],
    ["C012", "c12"],
    ["c0", "c0"],
    ["c99999999999999999999", "c99999999999999999999"],
    ["c", null],
    ["12", null],
    ["c1 2", null],
    ["cc3", null],
  ])("reads %j as %j", (text, id) => {
    expect(readCompartmentDisplayId(text)).toBe(id)
  })
})
