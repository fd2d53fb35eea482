import { describe, expect, it } from "vitest"
import { closestName } from "../../src/config/closest-name.js"

const COMMANDS = ["replay", "lab", "status", "doctor", "setup", "config"]

describe("closestName", () => {
  it.each([
    ["replya", "replay"],
    ["stauts", "status"],
    ["Doctor", "doctor"],
    ["confg", "config"],
    ["seutp", "setup"],
    ["la", "lab"],
  ])("takes %s for %s", (given, meant) => {
    expect(closestName(given, COMMANDS)).toBe(meant)
  })

  it.each([["frobnicate"], ["x"], ["zz"], [""], ["statistics"]])("suggests nothing for %j", (given) => {
    expect(closestName(given, COMMANDS)).toBeNull()
  })

  it("suggests nothing from an empty list", () => {
    expect(closestName("replay", [])).toBeNull()
  })
})
