import { describe, expect, it } from "vitest"
import { extractJsonObject, parseHistorianOutput } from "../../src/historian/parse-historian-output.js"

const SOURCES = new Map([
  ["c1", "§1§ [user] fix src/slugify.js\n§2§ [tool call] bash {\"command\":\"npm test\"}\n[tool completed] ok"],
  ["c2", "§3§ [assistant] bumped lodash to 4.17.21 in package.json"],
])

const TIERS = {
  c1: {
    full: "Fixed src/slugify.js after npm test failed; the user wanted no API change.",
    dense: null,
    compact: "Fixed src/slugify.js.",
    anchor: "slugify fixed",
  },
  c2: {
    full: null,
    dense: "Bumped lodash to 4.17.21 in package.json.",
    compact: "lodash 4.17.21",
    anchor: "dependency bump",
  },
}

function answer(overrides: { episodes?: unknown[] } = {}): string {
  return JSON.stringify({
    episodes: overrides.episodes ?? [
      { id: "c1", tiers: TIERS.c1, facts: [{ kind: "decision", text: "fix slugify in place", tags: [1, 2] }] },
      { id: "c2", tiers: TIERS.c2 },
    ],
  })
}

const parse = (text: string, sources: ReadonlyMap<string, string> = SOURCES) => parseHistorianOutput({ text, sources })

describe("parseHistorianOutput", () => {
  it("accepts a valid answer and fills in the defaults", () => {
    const result = parse(answer())
    expect(result).toEqual({
      ok: true,
      value: [
        { id: "c1", tiers: TIERS.c1, facts: [{ kind: "decision", text: "fix slugify in place", tags: [1, 2] }] },
        { id: "c2", tiers: TIERS.c2, facts: [] },
      ],
    })
  })

  it("defaults a fact's tags to none", () => {
    const episodes = [
      { id: "c1", tiers: TIERS.c1, facts: [{ kind: "identifier", text: "src/slugify.js" }] },
      { id: "c2", tiers: TIERS.c2 },
    ]
    const result = parse(answer({ episodes }))
    expect(result.ok && result.value[0]?.facts).toEqual([{ kind: "identifier", text: "src/slugify.js", tags: [] }])
  })

  it.each<[string, (json: string) => string]>([
    ["a fenced block", (json) => `\`\`\`json\n${json}\n\`\`\``],
    ["prose around it", (json) => `Here are the tiers you asked for:\n${json}\nLet me know if you need more.`],
    ["prose with a stray closing brace after it", (json) => `Sure. ${json} } done`],
    ["leading whitespace", (json) => `\n\n   ${json}`],
  ])("tolerates %s", (_name, wrap) => {
    expect(parse(wrap(answer()))).toEqual(parse(answer()))
    expect(parse(wrap(answer())).ok).toBe(true)
  })

  it.each<[string, string, string]>([
    ["no JSON at all", "I could not do it.", "the answer contains no JSON object"],
    ["an unclosed object", '{"episodes": [', "the answer contains no JSON object"],
  ])("rejects %s", (_name, text, error) => {
    expect(parse(text)).toEqual({ ok: false, error })
  })

  it("rejects JSON that does not parse, with the parser's reason", () => {
    const result = parse('{"episodes": [1, 2,]}')
    expect(result.ok).toBe(false)
    expect(!result.ok && result.error).toMatch(/^the JSON does not parse \(.+\)$/)
  })

  it.each<[string, unknown, string]>([
    ["no episodes key", { tiers: {} }, "episodes"],
    ["an empty episode list", { episodes: [] }, "episodes"],
    [
      "a missing compact tier",
      { episodes: [{ id: "c1", tiers: { full: null, dense: null, anchor: "a" } }] },
      "episodes.0.tiers.compact",
    ],
    [
      "an empty anchor",
      { episodes: [{ id: "c1", tiers: { full: null, dense: null, compact: "c", anchor: "" } }] },
      "episodes.0.tiers.anchor",
    ],
    [
      "a null compact tier",
      { episodes: [{ id: "c1", tiers: { ...TIERS.c1, compact: null } }] },
      "episodes.0.tiers.compact",
    ],
    [
      "an unknown fact kind",
      {
        episodes: [
          { id: "c1", tiers: TIERS.c1 },
          { id: "c2", tiers: TIERS.c2, facts: [{ kind: "constraint", text: "x" }] },
        ],
      },
      "episodes.1.facts.0.kind",
    ],
    [
      "a tag that is not a positive integer",
      { episodes: [{ id: "c1", tiers: TIERS.c1, facts: [{ kind: "decision", text: "x", tags: [0] }] }] },
      "episodes.0.facts.0.tags.0",
    ],
    ["an episode id that is a number", { episodes: [{ id: 1, tiers: TIERS.c1 }] }, "episodes.0.id"],
  ])("rejects the wrong shape (%s) and names the path", (_name, value, path) => {
    const result = parse(JSON.stringify(value))
    expect(result.ok).toBe(false)
    const escaped = path.replace(/\./g, "\\.")
    expect(!result.ok && result.error).toMatch(new RegExp(`^the JSON has the wrong shape at ${escaped}: .+`))
  })

  it("names the top level when the answer is not an object of the right kind", () => {
    const result = parse('{"episodes": "all of them"}')
    expect(!result.ok && result.error).toMatch(/^the JSON has the wrong shape at episodes: /)
  })

  it.each<[string, string[], string]>([
    ["a missing episode", ["c1"], 'the episode ids are ["c1"], expected ["c1","c2"]'],
    ["an extra episode", ["c1", "c2", "c3"], 'the episode ids are ["c1","c2","c3"], expected ["c1","c2"]'],
    ["an episode twice", ["c1", "c1"], 'the episode ids are ["c1","c1"], expected ["c1","c2"]'],
    ["the wrong episode", ["c1", "c9"], 'the episode ids are ["c1","c9"], expected ["c1","c2"]'],
  ])("rejects %s", (_name, ids, error) => {
    const episodes = ids.map((id) => ({ id, tiers: TIERS.c1 }))
    expect(parse(answer({ episodes }))).toEqual({ ok: false, error })
  })

  it("accepts the episodes in any order", () => {
    const episodes = [
      { id: "c2", tiers: TIERS.c2 },
      { id: "c1", tiers: TIERS.c1 },
    ]
    expect(parse(answer({ episodes })).ok).toBe(true)
  })

  it("rejects a tier that states an identifier its episode's source does not have", () => {
    const episodes = [
      { id: "c1", tiers: { ...TIERS.c1, dense: "Fixed src/slugify.js and src/other.ts." } },
      { id: "c2", tiers: TIERS.c2 },
    ]
    expect(parse(answer({ episodes }))).toEqual({
      ok: false,
      error: "episode c1 tier dense states identifiers not in its source: src/other.ts",
    })
  })

  it("rejects an identifier taken from another episode's source", () => {
    const episodes = [
      { id: "c1", tiers: TIERS.c1 },
      { id: "c2", tiers: { ...TIERS.c2, anchor: "bumped lodash; see src/slugify.js" } },
    ]
    expect(parse(answer({ episodes }))).toEqual({
      ok: false,
      error: "episode c2 tier anchor states identifiers not in its source: src/slugify.js",
    })
  })

  it("rejects an invented version number", () => {
    const episodes = [
      { id: "c1", tiers: TIERS.c1 },
      { id: "c2", tiers: { ...TIERS.c2, compact: "lodash 4.17.22" } },
    ]
    const result = parse(answer({ episodes }))
    expect(!result.ok && result.error).toBe("episode c2 tier compact states identifiers not in its source: 4.17.22")
  })

  it("lists at most five unsupported identifiers", () => {
    const invented = ["a/b/one.ts", "a/b/two.ts", "a/b/three.ts", "a/b/four.ts", "a/b/five.ts", "a/b/six.ts"]
    const episodes = [
      { id: "c1", tiers: { ...TIERS.c1, full: `touched ${invented.join(" ")}` } },
      { id: "c2", tiers: TIERS.c2 },
    ]
    const result = parse(answer({ episodes }))
    expect(!result.ok && result.error).toBe(
      `episode c1 tier full states identifiers not in its source: ${invented.slice(0, 5).join(", ")}`,
    )
  })
})

describe("extractJsonObject", () => {
  it.each<[string, string, string | null]>([
    ["a plain object", '{"a":1}', '{"a":1}'],
    ["the first of two objects", '{"a":1} {"b":2}', '{"a":1}'],
    ["a nested object", 'x {"a":{"b":{}}} y', '{"a":{"b":{}}}'],
    ["braces inside strings", '{"a":"}{ not a brace","b":"{"}', '{"a":"}{ not a brace","b":"{"}'],
    ["an escaped quote before a brace", '{"a":"say \\"}\\" now"} tail', '{"a":"say \\"}\\" now"}'],
    ["an escaped backslash ending a string", '{"a":"dir\\\\"} tail}', '{"a":"dir\\\\"}'],
    ["no object", "no braces here", null],
    ["an unbalanced object", '{"a":{"b":1}', null],
    ["a closing brace only", "}", null],
  ])("finds %s", (_name, text, expected) => {
    expect(extractJsonObject(text)).toBe(expected)
  })

  it("returns a slice that parses as JSON", () => {
    const text = 'Answer: {"episodes":[{"id":"c1","note":"use {x} and \\"y\\""}]} -- end'
    const json = extractJsonObject(text)
    expect(JSON.parse(json ?? "")).toEqual({ episodes: [{ id: "c1", note: 'use {x} and "y"' }] })
  })
})
