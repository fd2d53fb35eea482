import { describe, expect, it } from "vitest"
import { lineShape, SAME_SHAPE_LINES, SHAPED_CANDIDATES, takeVaried } from "../../src/historian/line-shapes.js"
import { keptOutputLines } from "../../src/historian/output-lines.js"
import { ALL_RECOGNIZERS, recognizersWithout } from "../../src/session/recognizers.js"

/** A read tool's output as OpenCode returns it: path, type, numbered lines, end note. */
function readOutput(path: string, fileLines: readonly string[]): string {
  const numbered = fileLines.map((line, index) => `${index + 1}: ${line}`)
  return [`<path>${path}</path>`, "<type>file</type>", "<content>", ...numbered, "", `(End of file - total ${fileLines.length} lines)`, "</content>"].join("\n")
}

/** A Cargo manifest whose dependency table is longer than DENSE's lines, with a patched crate at the end. */
const CARGO_TOML = readOutput("/home/dev/tollbridge/Cargo.toml", [
  "[package]",
  'name = "tollbridge"',
  'version = "0.9.4"',
  'edition = "2021"',
  "",
  "[dependencies]",
  'axum = "0.7.5"',
  'serde = { version = "1.0.203", features = ["derive"] }',
  'serde_json = "1.0.117"',
  'sqlx = { version = "0.7.4", features = ["postgres", "runtime-tokio"] }',
  'tokio = { version = "1.38.0", features = ["full"] }',
  'tower = "0.4.13"',
  'tower-http = "0.5.2"',
  'tracing = "0.1.40"',
  'tracing-subscriber = "0.3.18"',
  'uuid = "1.8.0"',
  'rust_decimal = "1.35.0"',
  "",
  "# The upstream rustls 0.23.9 rejects the toll gantries' certificates; our patch accepts their critical extension.",
  "[patch.crates-io]",
  'rustls = { git = "https://git.tollbridge.example/forks/rustls", tag = "v0.23.9-tb.1" }',
])

describe("lineShape", () => {
  it("writes each word, path, version and number as one token", () => {
    expect(lineShape("github.com/acme/kit v1.4.0")).toBe("w w")
    expect(lineShape('tower = "0.4.13"')).toBe('w = "w"')
    expect(lineShape("replace github.com/acme/kit => ../kit")).toBe("w w => ../w")
  })
})

describe("takeVaried", () => {
  const rows = ["veh_2001  4471  parked", "veh_2002  4472  moving", "veh_2003  4473  parked", "veh_2004  4474  moving", "veh_2005  4475  parked"]

  it("takes a line of another shape before the rows past the first few of one shape, at one priority", () => {
    const candidates = [...rows, "5 vehicles, 1 stale"].map((text) => ({ text, priority: 2 }))
    expect(takeVaried(candidates, SAME_SHAPE_LINES + 1).map((line) => line.text)).toEqual([...rows.slice(0, SAME_SHAPE_LINES), "5 vehicles, 1 stale"])
  })

  it("takes a better priority whole, repeated shapes or not, and fills what is left in line order", () => {
    const better = ["a = 1", "b = 2", "c = 3", "d = 4"].map((text) => ({ text, priority: 1 }))
    const worse = rows.map((text) => ({ text, priority: 2 }))
    expect(takeVaried([...better, ...worse], 6).map((line) => line.text)).toEqual([...better.map((line) => line.text), ...rows.slice(0, 2)])
  })

  it("shapes at most SHAPED_CANDIDATES of one priority, the rest in line order", () => {
    const many = Array.from({ length: SHAPED_CANDIDATES + 5 }, (_, index) => ({ text: `row ${index}`, priority: 1 }))
    const odd = { text: "total: 1005 rows, 0 rejected", priority: 1 }
    const taken = takeVaried([...many, odd], 5)
    expect(taken.map((line) => line.text)).toEqual(["row 0", "row 1", "row 2", "row 3", "row 4"])
  })
})

describe("varied-shapes in DENSE's lines of a read manifest", () => {
  it("keeps the patched dependency a long dependency table crowded out", () => {
    const kept = keptOutputLines({ keep: "document", output: CARGO_TOML, failed: false, recognizers: ALL_RECOGNIZERS })
    expect(kept.some((line) => line.includes('tag = "v0.23.9-tb.1"'))).toBe(true)
    expect(kept.length).toBeLessThanOrEqual(10)
  })

  it("without the rule, the table's first lines take every place", () => {
    const kept = keptOutputLines({ keep: "document", output: CARGO_TOML, failed: false, recognizers: recognizersWithout(["varied-shapes"]) })
    expect(kept.some((line) => line.includes('tag = "v0.23.9-tb.1"'))).toBe(false)
  })

  it("leaves an output with fewer candidates than places as it was", () => {
    const short = readOutput("/home/dev/tollbridge/.tool-versions", ["rust 1.79.0", "nodejs 20.14.0", "postgres 16.3"])
    const on = keptOutputLines({ keep: "document", output: short, failed: false, recognizers: ALL_RECOGNIZERS })
    const off = keptOutputLines({ keep: "document", output: short, failed: false, recognizers: recognizersWithout(["varied-shapes"]) })
    expect(on).toEqual(off)
  })
})
