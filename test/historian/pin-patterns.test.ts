import { describe, expect, it } from "vitest"
import type { Fact } from "../../src/historian/fidelity-types.js"
import { applyPinPatterns, compilePinPatterns } from "../../src/historian/pin-patterns.js"

function fact(text: string, overrides: Partial<Fact> = {}): Fact {
  const source = { tags: [3], messageIds: ["m1"] }
  return { kind: "decision", text, retention: "COMPRESSIBLE", floor: "compact", source, ...overrides }
}

const matches = (patterns: string[], text: string): boolean[] =>
  compilePinPatterns(patterns).matchers.map((matcher) => matcher(text))

describe("compilePinPatterns", () => {
  it.each<[string, string, boolean]>([
    ["API key", "never log the api KEY", true],
    ["API key", "never log the key", false],
    ["/port \\d{4}/", "listen on port 8080", true],
    ["/port \\d{4}/", "listen on port 80", false],
    ["/^Never/", "Never push to main", true],
    ["/^never/", "Never push to main", false],
    ["/^never/i", "Never push to main", true],
    ["a.b", "axb", false],
    ["a.b", "use a.b here", true],
  ])("compiles %s: matches %j is %s", (pattern, text, expected) => {
    const compiled = compilePinPatterns([pattern])
    expect(compiled.problems).toEqual([])
    expect(compiled.matchers.map((matcher) => matcher(text))).toEqual([expected])
  })

  it("reports a pattern that is not a valid regular expression and never matches it, not even as text", () => {
    const compiled = compilePinPatterns(["/fix(/", "ok"])
    expect(compiled.problems).toHaveLength(1)
    expect(compiled.problems[0]).toMatch(/^pin pattern \/fix\(\/ is not a valid regular expression \(.+\); ignored$/)
    expect(compiled.matchers).toHaveLength(1)
    expect(compiled.matchers.map((matcher) => matcher("see /FIX(/ in the notes"))).toEqual([false])
    expect(compiled.matchers.map((matcher) => matcher("ok then"))).toEqual([true])
  })

  it("reports an unknown flag the same way", () => {
    const compiled = compilePinPatterns(["/abc/q"])
    expect(compiled.problems).toEqual([expect.stringContaining("pin pattern /abc/q is not a valid regular expression")])
    expect(compiled.matchers).toEqual([])
  })

  it("answers the same for the same text every time, also with the g or y flag", () => {
    for (const pattern of ["/secret/g", "/secret/gi", "/secret/y"]) {
      const [matcher] = compilePinPatterns([pattern]).matchers
      expect([matcher?.("secret one"), matcher?.("secret two"), matcher?.("secret three")]).toEqual([true, true, true])
    }
  })

  it("compiles nothing from no patterns", () => {
    expect(compilePinPatterns([])).toEqual({ matchers: [], problems: [] })
    expect(matches(["x", "/y/"], "xy")).toEqual([true, true])
  })
})

describe("applyPinPatterns", () => {
  it("raises every matching fact to PIN with floor exact and leaves the others", () => {
    const facts = [
      fact("use port 8080 for the dev server"),
      fact("rename util.ts"),
      fact("bind to PORT 9090", { kind: "identifier" }),
    ]
    const { matchers } = compilePinPatterns(["/port \\d+/i"])
    expect(applyPinPatterns(facts, matchers)).toEqual([
      { ...facts[0], retention: "PIN", floor: "exact" },
      facts[1],
      { ...facts[2], retention: "PIN", floor: "exact" },
    ])
  })

  it("pins a fact when any pattern matches", () => {
    const { matchers } = compilePinPatterns(["nothing here", "util"])
    expect(applyPinPatterns([fact("rename util.ts")], matchers)[0]).toMatchObject({ retention: "PIN", floor: "exact" })
  })

  it("leaves a fact that is already PIN as it is", () => {
    const pinned = fact("keep this", { kind: "constraint", retention: "PIN", floor: "exact" })
    const [result] = applyPinPatterns([pinned], compilePinPatterns(["keep"]).matchers)
    expect(result).toBe(pinned)
  })

  it("returns a new list and never changes the facts it was given", () => {
    const facts = [fact("use port 8080")]
    const copy = structuredClone(facts)
    const none = applyPinPatterns(facts, [])
    expect(none).toEqual(facts)
    expect(none).not.toBe(facts)
    applyPinPatterns(facts, compilePinPatterns(["port"]).matchers)
    expect(facts).toEqual(copy)
  })

  it("pins every matching fact with a global pattern, not every other one", () => {
    const facts = ["secret a", "secret b", "secret c", "secret d"].map((text) => fact(text))
    const pinned = applyPinPatterns(facts, compilePinPatterns(["/secret/g"]).matchers)
    expect(pinned.map((candidate) => candidate.retention)).toEqual(["PIN", "PIN", "PIN", "PIN"])
  })
})
