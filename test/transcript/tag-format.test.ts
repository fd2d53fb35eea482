import { describe, expect, it } from "vitest"
import { stripTagEchoes, TAG_SIGN, tagPrefix } from "../../src/transcript/tag-format.js"

describe("tagPrefix", () => {
  it.each([
    [1, "§1§ "],
    [12, "§12§ "],
    [123456789, "§123456789§ "],
  ])("renders tag %i as %j", (tag, expected) => {
    expect(tagPrefix(tag)).toBe(expected)
  })

  it("uses the section sign", () => {
    expect(TAG_SIGN).toBe("\u00a7")
    expect(tagPrefix(7).startsWith(TAG_SIGN)).toBe(true)
  })
})

describe("stripTagEchoes", () => {
  it.each([
    ["§12§ text", "text"],
    ["text §12§ more", "text more"],
    ["§ 12 §", ""],
    ["§§12§§", ""],
    ["[§12§]", ""],
    ["`§12§`", ""],
    ["(§12§) done", "done"],
    ["&sect;12&sect;", ""],
    ["&sect;12§ mixed", "mixed"],
    ["§1§ first §2§ second §3§ third", "first second third"],
    ["§1§ a\n§2§ b", "a\nb"],
    ["§12§§13§", ""],
    ["§12§ §13§ text", "text"],
    ["(see §12§)", "(see )"],
    ["[see §12§]", "[see ]"],
    ["§123456789§ max", "max"],
  ])("removes the echo in %j", (input, expected) => {
    expect(stripTagEchoes(input)).toBe(expected)
  })

  it.each([
    "see § 4.2",
    "§5 of the contract",
    "§",
    "a lone § in the middle",
    "§§ 12 and 13 of the statute",
    "text without any sign",
    "",
    "§1234567890§ has ten digits",
    "&sect; 4 of the act",
  ])("leaves %j byte-identical", (input) => {
    expect(stripTagEchoes(input)).toBe(input)
  })

  it("is idempotent", () => {
    const once = stripTagEchoes("§1§ a [§2§] b `§3§` c &sect;4&sect; d")
    expect(once).toBe("a b c d")
    expect(stripTagEchoes(once)).toBe(once)
  })
})
