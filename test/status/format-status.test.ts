import { describe, expect, it } from "vitest"
import type { Breakdown } from "../../src/render/measure-prompt.js"
import { BREAKDOWN } from "./breakdown-fixture.js"
import { formatStatus, reasoningLines } from "../../src/status/format-status.js"
import type { StatusData } from "../../src/status/status-data.js"
import { reasoningRuleById } from "../../src/session/reasoning-rules.js"

const NOW = 1_700_000_000_000


/** A session whose last pass rendered `breakdown` in a 60,000-token window, with `history` applied. */
function status(options: {
  breakdown?: Breakdown
  history?: StatusData["history"]
  lastExecute?: StatusData["lastExecute"]
  cost?: StatusData["cost"]
}): StatusData {
  return {
    sessionId: "ses_format",
    title: null,
    lastPass: {
      seq: 4,
      at: NOW - 5_000,
      decision: "replay",
      reason: "below-threshold",
      band: "below",
      usageTokens: 30_000,
      windowTokens: 60_000,
      breakdown: options.breakdown ?? BREAKDOWN,
      nudge: null,
    },
    thresholdPercent: 65,
    lastExecute: options.lastExecute ?? null,
    queuedDrops: [],
    tags: { total: 0, dropped: 0 },
    historian: { strategy: "canonical", compartments: 0, folded: 0, modelTiers: 0, tiers: {}, lastError: null },
    history: options.history ?? null,
    pins: 0,
    errors: [],
    hostCompaction: null,
    cost: options.cost ?? { calls: 0, cost: 0, promptTokens: 0, cachedTokens: 0 },
  }
}

/** The report's bar, legend and breakdown lines. */
function breakdownOf(report: string): string[] {
  const lines = report.split("\n")
  return lines.slice(lines.findIndex((line) => line.startsWith("[")), lines.findIndex((line) => line.startsWith("Tags:")) - 1)
}

const HISTORY: NonNullable<StatusData["history"]> = {
  tokens: 9_000,
  ledgerTokens: 3_000,
  pinnedFacts: 1,
  condensedPins: 0,
  omittedEpisodes: 0,
  tiers: [
    { tier: "dense", compartments: 1, tokens: 2_500 },
    { tier: "anchor", compartments: 12, tokens: 3_000 },
  ],
}

describe("formatStatus", () => {
  it("says when the configured protected window was clamped, under the usage", () => {
    const report = formatStatus({ ...status({}), protectedClamp: { clampedFrom: 1_000_000, tokens: 15_000, usableTokens: 60_000 } }, NOW)
    const lines = report.split("\n")
    expect(lines[lines.findIndex((line) => line.startsWith("Last pass:")) + 1]).toBe(
      "Protected window: protected_tokens 1,000,000 is more than a quarter of the usable window (60,000 tokens); the " +
        "protected window is clamped to 15,000 tokens, so an execute pass can still bring the prompt under the threshold",
    )
    expect(formatStatus(status({}), NOW)).not.toContain("Protected window")
  })

  it("ends with the sessions the host process holds in memory, only where a host process reports them", () => {
    expect(formatStatus({ ...status({}), sessionsHeld: 2 }, NOW).split("\n").at(-1)).toBe(
      "Held in memory by this process: 2 sessions (a deleted session is let go; its stored rows stay)",
    )
    expect(formatStatus({ ...status({}), lastPass: null, sessionsHeld: 1 }, NOW).split("\n").at(-1)).toBe(
      "Held in memory by this process: 1 session (a deleted session is let go; its stored rows stay)",
    )
    expect(formatStatus(status({}), NOW)).not.toContain("Held in memory")
  })

  it("still lists the errors for a session no pass has run for (its passes met a busy store)", () => {
    const error = { sessionId: "ses_format", at: NOW - 2_000, hook: "event", code: null, message: "database is locked", stack: null }
    const report = formatStatus({ ...status({}), lastPass: null, tags: { total: 4, dropped: 0 }, errors: [error] }, NOW)
    expect(report.split("\n")).toEqual([
      "magic-context status: session ses_format",
      "",
      "No pass has run for this session yet (4 tags stored).",
      "",
      "Recent internal errors (the session went on unchanged):",
      "  2s ago event: database is locked",
    ])
  })

  it("lists config problems before the errors, and says nothing of config when there are none", () => {
    const problem = '/p/magic-context.jsonc: key "pins.0" has value "", expected string to have >=1 characters'
    const lines = formatStatus({ ...status({}), configProblems: [problem] }, NOW).split("\n")
    expect(lines.slice(-4)).toEqual(["Config problems (the defaults apply where a value was refused):", `  ${problem}`, "", "Recent internal errors: none"])
    expect(formatStatus(status({}), NOW)).not.toContain("Config problems")
  })

  it("splits the history into the pinned ledger and the tiers, in the lines and in the bar", () => {
    // Ledger 3,000 of the history's 9,000; of the other 6,000 the tiers hold 5,500, the rest is the working set.
    expect(breakdownOf(formatStatus(status({ history: HISTORY }), NOW))).toEqual([
      `[${"F".repeat(3)}${"L".repeat(3)}${"H".repeat(6)}${"C".repeat(6)}${"P".repeat(9)}${"T".repeat(3)}${".".repeat(30)}]`,
      "F fixed prompt  L pinned ledger  H compartment history  C settled conversation  P protected recent work  T tool output  . free",
      "",
      "  fixed prompt               3,000  10%",
      "  pinned ledger             ~3,000  10%  (1 pinned fact)",
      "  compartment history        6,000  20%",
      "    dense                    2,500  (1 compartment)",
      "    anchor                   3,000  (12 compartments)",
      "    working set, headers      ~500",
      "  settled conversation       6,000  20%",
      "  protected recent work      9,000  30%",
      "  tool output                3,000  10%",
      "  of it reclaimable          1,000  (finished tool output outside the protected window)",
      "  tag prefixes                 120",
      "  total                     30,000",
    ])
  })

  it("says how many pins the full ledger moved into their episodes and how many episodes are not shown", () => {
    const lines = breakdownOf(formatStatus(status({ history: { ...HISTORY, condensedPins: 348, omittedEpisodes: 391 } }), NOW))
    expect(lines.slice(4, 9)).toEqual([
      "  pinned ledger             ~3,000  10%  (1 pinned fact; the ledger is full: 348 are in their episodes (it lets the oldest go first, constraints last))",
      "  compartment history        6,000  20%",
      "    dense                    2,500  (1 compartment)",
      "    anchor                   3,000  (12 compartments)",
      "    not shown                    0  (391 compartments did not fit the window even at their anchors)",
    ])
  })

  it("shows an empty ledger and no tiers before the first fold", () => {
    const breakdown = { ...BREAKDOWN, history: 0, conversation: 15_000 }
    const lines = breakdownOf(formatStatus(status({ breakdown }), NOW))
    expect(lines[0]).toBe(`[${"F".repeat(3)}${"C".repeat(15)}${"P".repeat(9)}${"T".repeat(3)}${".".repeat(30)}]`)
    expect(lines.slice(3, 7)).toEqual([
      "  fixed prompt               3,000  10%",
      "  pinned ledger                  0  0%",
      "  compartment history            0  0%",
      "  settled conversation      15,000  50%",
    ])
  })

  it("does not split a history the last pass did not render", () => {
    const breakdown = { ...BREAKDOWN, history: 0, conversation: 15_000 }
    const lines = breakdownOf(formatStatus(status({ breakdown, history: HISTORY }), NOW))
    expect(lines.slice(4, 7)).toEqual([
      "  pinned ledger                  0  0%",
      "  compartment history            0  0%",
      "  settled conversation      15,000  50%",
    ])
  })

  it("counts the rest exactly when the history has no ledger", () => {
    const history = {
      tokens: 9_000,
      ledgerTokens: 0,
      pinnedFacts: 0,
      condensedPins: 0,
      omittedEpisodes: 0,
      tiers: [{ tier: "full" as const, compartments: 2, tokens: 8_800 }],
    }
    const lines = breakdownOf(formatStatus(status({ history }), NOW))
    expect(lines.slice(4, 8)).toEqual([
      "  pinned ledger                  0  0%",
      "  compartment history        9,000  30%",
      "    full                     8,800  (2 compartments)",
      "    working set, headers       200",
    ])
  })
})

describe("formatStatus cost lines", () => {
  it("says what the session's prompts cost so far and what the last execute pass changed, cost and saved", () => {
    const report = formatStatus(
      status({
        lastExecute: {
          seq: 3,
          at: NOW - 60_000,
          reason: "pays",
          usageBefore: 30_000,
          usageAfter: 22_000,
          dropped: [4, 5],
          tierChanges: [],
          firstDivergence: 41_250,
          cost: 8_312.5,
          saved: 2_400,
          callsSince: 2,
        },
        cost: { calls: 40, cost: 181_234.4, promptTokens: 1_000_000, cachedTokens: 912_000 },
      }),
      NOW,
    )
    expect(report).toContain("  prompt changed from byte 41,250; its request cost ~8,313, saved ~2,400 so far (3 calls)\n")
    expect(report).toContain(
      "Prompt cost so far (estimate, in uncached input tokens): ~181,234 over 40 calls; 91% of 1,000,000 prompt tokens read from the cache",
    )
  })

  it("names the price list in force, prices the session and the last execute under it, against the host alone", () => {
    const estimate = (hostAlone: number | null, problem: string | null): StatusData["costEstimate"] => ({
      pricing: {
        prices: { list: "anthropic-1h", origin: "unknown-provider", prices: { uncached: 1, cachedRead: 0.1, cacheWrite: 2 }, overridden: [], problem },
        cacheTtlMs: 300_000,
        model: "local/qwen3",
      },
      calls: 40,
      withPlugin: 190_000.4,
      hostAlone,
      lastExecute: { seq: 3, cost: 9_000.2, savesPerCall: 800, savedSoFar: 2_400 },
    })
    const lastExecute: StatusData["lastExecute"] = {
      seq: 3,
      at: NOW - 60_000,
      reason: "threshold-work",
      usageBefore: 30_000,
      usageAfter: 22_000,
      dropped: [4, 5],
      tierChanges: [],
      firstDivergence: 41_250,
      cost: 8_312.5,
      saved: 2_400,
      callsSince: 2,
    }
    const cost = { calls: 40, cost: 181_234.4, promptTokens: 1_000_000, cachedTokens: 912_000 }
    const report = formatStatus({ ...status({ lastExecute, cost }), costEstimate: estimate(250_000, null) }, NOW)
    const lines = report.split("\n")
    const from = lines.findIndex((line) => line.startsWith("  prompt changed"))
    expect(lines.slice(from, from + 4)).toEqual([
      "  prompt changed from byte 41,250; its request cost ~9,000, saved ~2,400 so far (3 calls), ~800 a call from now on",
      "Price list for local/qwen3: anthropic-1h (provider not in the price table: the most conservative list, the highest " +
        "write premium): cached read 0.1×, cache write 2× the uncached input price",
      "Prompt cost so far (estimate, in uncached input tokens): ~190,000 over 40 calls; 91% of 1,000,000 prompt tokens read from the cache",
      "Without magic-context (estimate, the host sending its whole transcript, no compaction): ~250,000 over the same calls; magic-context saves ~60,000 (24%)",
    ])
    const dearer = formatStatus({ ...status({ lastExecute, cost }), costEstimate: estimate(150_000, "models.local/*.prices: set aside") }, NOW)
    expect(dearer).toContain("\n  config: models.local/*.prices: set aside\n")
    expect(dearer).toContain("; magic-context costs ~40,000 more (27%)\n")
    expect(formatStatus({ ...status({ lastExecute, cost }), costEstimate: estimate(null, null) }, NOW)).toContain(
      "\nWithout magic-context: not known (the stored messages do not cover every call)\n",
    )
  })

  it("says nothing of cost before any pass recorded one", () => {
    expect(formatStatus(status({}), NOW)).not.toContain("Prompt cost so far")
  })
})

describe("reasoningLines", () => {
  const counts = { deferred: 2, withheld: 7, withheldTokens: 1_234, runningLoop: 0 }

  it("names the rule, where it came from, what breaking it does, and what it made the passes do", () => {
    expect(reasoningLines({ rule: reasoningRuleById("anthropic-prefix-check"), source: "table", model: "anthropic/claude-opus-5-5", ...counts })).toEqual([
      "Reasoning rule: anthropic-prefix-check for anthropic/claude-opus-5-5 (from the provider table): signed thinking, byte-identical; a block is valid only while everything before it is unchanged",
      "  if broken: HTTP 400 invalid_request_error, or the invalid blocks dropped (thinking.block_binding.prefix_mismatch_behavior); source: https://platform.claude.com/docs/en/build-with-claude/preserved-thinking/prefix-checks",
      "  thinking withheld by execute passes: 7 blocks (1,234 tokens); passes held for the turn boundary: 2",
    ])
  })

  it("says when a force or emergency pass took a running loop's thinking, and only names the none rule", () => {
    expect(reasoningLines({ rule: reasoningRuleById("anthropic-prefix-check"), source: "config", model: null, ...counts, runningLoop: 1 }).at(-1)).toBe(
      "  1 force or emergency pass took a running tool loop's thinking (the model re-plans that step without it)",
    )
    expect(reasoningLines({ rule: reasoningRuleById("none"), source: "table", model: "mock/mock-model", ...counts })).toEqual([
      "Reasoning rule: none for mock/mock-model (from the provider table): no reasoning state the provider checks",
    ])
  })
})
