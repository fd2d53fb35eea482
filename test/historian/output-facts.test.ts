import { describe, expect, it } from "vitest"
import { outputFacts, settingLines, specConstraints } from "../../src/historian/output-facts.js"

describe("outputFacts", () => {
  it("reads the [branch hash] line of a git commit", () => {
    const output = "[fix/ledg-412-stripe-raw-body 7c1e9a4] Verify Stripe signatures on the raw body\n 2 files changed, 31 insertions(+)"
    expect(outputFacts(output, { isSearch: false })).toEqual({ commits: ["[fix/ledg-412-stripe-raw-body 7c1e9a4]"], locations: [] })
    expect(outputFacts("[main (root-commit) 0a1b2c3] init", { isSearch: false }).commits).toEqual(["[main (root-commit) 0a1b2c3]"])
  })

  it("takes the first distinct path:line hits of a search, and none from other output", () => {
    const output = [
      "apps/api/src/webhooks/stripe-handler.ts:131:  const event = stripe.webhooks.constructEvent(body, sig, secret)",
      "apps/api/src/webhooks/stripe-handler.ts:131:  duplicate",
      "internal/gateway/watch.go:113:7: go func() {",
      "src/a.ts-12-context line",
      "src/b.ts:9: third",
      "src/c.ts:10: fourth is over the cap",
    ].join("\n")
    expect(outputFacts(output, { isSearch: true }).locations.map((location) => location.text)).toEqual([
      "apps/api/src/webhooks/stripe-handler.ts:131",
      "internal/gateway/watch.go:113",
      "src/b.ts:9",
    ])
    expect(outputFacts(output, { isSearch: false }).locations).toEqual([])
    expect(outputFacts("no hits here\n", { isSearch: true })).toEqual({ commits: [], locations: [] })
  })
})

describe("settingLines", () => {
  it("keeps the added lines that set a name to a literal, trimmed of indentation and a trailing , or ;", () => {
    const newText = [
      "PORT=3100",
      "    refresh_skew_seconds: int = 90",
      "BATCH_SIZE = 200",
      "pub const DEFAULT_FLUSH_INTERVAL_MS: u64 = 250;",
      '  metrics_addr: ":9464"',
      "  reload_interval: 30s",
      "  enabled: true,",
      "const client = createClient(config)",
      "if (x) {",
    ].join("\n")
    expect(settingLines(newText, "")).toEqual([
      "PORT=3100",
      "refresh_skew_seconds: int = 90",
      "BATCH_SIZE = 200",
      "pub const DEFAULT_FLUSH_INTERVAL_MS: u64 = 250",
      'metrics_addr: ":9464"',
      "reload_interval: 30s",
    ])
  })

  it("skips lines the old text already had, and expressions", () => {
    expect(settingLines("PORT=3000\nHOST=localhost\nTIMEOUT = 5 * 60", "PORT=3000")).toEqual([])
    expect(settingLines("PORT=3100\n", "PORT=3000\n")).toEqual(["PORT=3100"])
  })
})

describe("specConstraints", () => {
  it("keeps the items under a heading that names rules, up to the next heading or prose", () => {
    const spec = [
      "Edge cases:",
      "- Expired/invalid/reused token cannot return context.",
      "",
      "Architecture constraints:",
      "- No temp-file context handoff.",
      "- One-time token + TTL required for safety and deterministic startup behavior.",
      "",
      "Definition of Done:",
      "- `Open conversation` launches a new project review tmux Claude session.",
      "## Rules",
      "1. Never edit generated files.",
      "Some prose after the list.",
      "- not a rule any more",
    ].join("\n")
    expect(specConstraints(spec)).toEqual([
      "No temp-file context handoff.",
      "One-time token + TTL required for safety and deterministic startup behavior.",
      "Never edit generated files.",
    ])
  })

  it("finds nothing in output without such a heading", () => {
    expect(specConstraints("constraints are checked in src/check.ts\n- a list item\n")).toEqual([])
  })
})

describe("settingLines for module attributes", () => {
  it("keeps an Elixir module attribute set to a literal, not a decorator or a call", () => {
    expect(settingLines('  @default_ttl_seconds 120\n  @name "review"\n  @doc false\n  @dataclass\n  @spec run(term) :: :ok', "")).toEqual([
      "@default_ttl_seconds 120",
      '@name "review"',
      "@doc false",
    ])
  })
})
