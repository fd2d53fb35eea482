import { describe, expect, it } from "vitest"
import { BREAKDOWN } from "./breakdown-fixture.js"
import { panelText, PANEL_WIDTH, shortTokens, sidebarPanel, type PanelLine } from "../../src/status/sidebar-panel.js"
import type { StatusData } from "../../src/status/status-data.js"
import type { ErrorRecord } from "../../src/store/error-repository.js"

const NOW = 1_700_000_000_000


/** A session whose last pass counted `BREAKDOWN` (30,000 tokens) in a 60,000-token window, threshold 65%. */
function status(overrides: Partial<StatusData> = {}, pass: Partial<NonNullable<StatusData["lastPass"]>> = {}): StatusData {
  return {
    sessionId: "ses_panel",
    title: null,
    lastPass: {
      seq: 9,
      at: NOW - 5_000,
      decision: "replay",
      reason: "below-threshold",
      band: "below",
      usageTokens: 30_000,
      windowTokens: 60_000,
      breakdown: BREAKDOWN,
      nudge: null,
      ...pass,
    },
    thresholdPercent: 65,
    lastExecute: null,
    queuedDrops: [],
    tags: { total: 12, dropped: 0 },
    historian: { strategy: "canonical", compartments: 0, folded: 0, modelTiers: 0, tiers: {}, lastError: null },
    history: null,
    pins: 0,
    errors: [],
    hostCompaction: null,
    cost: { calls: 0, cost: 0, promptTokens: 0, cachedTokens: 0 },
    ...overrides,
  }
}

const panel = (input: StatusData, width?: number) => sidebarPanel({ kind: "status", status: input }, { now: NOW, width })

function error(at: number, hook: string, message: string): ErrorRecord {
  return { sessionId: "ses_panel", at, hook, code: null, message, stack: null }
}

describe("sidebarPanel", () => {
  it("shows usage, the bar with the threshold, the band, the key of what the bar shows, and the rest", () => {
    expect(panelText(panel(status())).split("\n")).toEqual([
      "magic-context",
      "30.0k / 60.0k tokens (50%)",
      // 34 cells of 60,000 / 34 tokens each: F 3k, H 9k, C 6k, P 9k, T 3k (17 cells); the threshold's cell,
      // floor(65% of 34) = 22, is `|`.
      "[FFHHHHHCCCPPPPPTT.....|...........]",
      "band below · execute at 65%",
      "F fixed H history C conversation",
      "P protected T tools . free",
      "Queued drops: none",
      "Last execute: none yet",
      "Historian (canonical): 0 of 0 folded",
    ])
  })

  it("fits every line into the sidebar's width, for long values too", () => {
    const long = status(
      {
        queuedDrops: Array.from({ length: 40 }, (_, index) => 1000 + index),
        lastExecute: {
          seq: 120,
          at: NOW - 3_600_000 * 5,
          reason: "threshold",
          usageBefore: 1_234_567,
          usageAfter: 987_654,
          dropped: [1, 2, 3],
          tierChanges: [],
          firstDivergence: 10,
          cost: null,
          saved: null,
          callsSince: 3,
        },
        historian: { strategy: "canonical", compartments: 1200, folded: 1190, modelTiers: 0, tiers: { FULL: 10, DENSE: 300, COMPACT: 500, ANCHOR: 380 }, lastError: null },
        errors: [error(NOW - 1000, "experimental.chat.messages.transform", "x".repeat(200))],
      },
      { usageTokens: 1_234_567, windowTokens: 1_800_000 },
    )
    for (const width of [PANEL_WIDTH, 24]) {
      for (const line of panelText(panel(long, width)).split("\n")) expect([...line].length, line).toBeLessThanOrEqual(width)
    }
    expect(panelText(panel(long))).toContain("Queued drops: 40 · §1000§ §1001§")
    expect(panelText(panel(long))).toContain("Last execute #120, 5.0 h ago")
    expect(panelText(panel(long))).toContain("  1.2M → 988k tokens, 3 drops")
  })

  it("draws the bar to the usage line's length when our count differs from the calibrated usage", () => {
    // Usage (calibrated against the provider) 45,000; our count 30,000: the segments are scaled by 1.5.
    const filled = (usageTokens: number): number => {
      const bar = panelText(panel(status({}, { usageTokens }))).split("\n")[2] ?? ""
      return [...bar.slice(1, -1)].filter((cell) => cell !== "." && cell !== "|").length
    }
    // 30,000 of 60,000: half of the 34 cells; the threshold's marker (cell 22) is in the free part.
    expect(filled(30_000)).toBe(17)
    // 45,000 of 60,000: 75% of 34 cells, less the one the threshold's marker takes inside the filled part.
    expect(filled(45_000)).toBe(Math.round(0.75 * 34) - 1)
  })

  it("gives each run of the bar the tone of its segment and the threshold its own", () => {
    const bar = panel(status())[2] as PanelLine
    expect(bar.map((part) => [part.text, part.tone])).toEqual([
      ["[", "muted"],
      ["FF", "fixed"],
      ["HHHHH", "history"],
      ["CCC", "conversation"],
      ["PPPPP", "protected"],
      ["TT", "tool"],
      [".....", "free"],
      ["|", "threshold"],
      ["...........", "free"],
      ["]", "muted"],
    ])
  })

  it("colors the usage line by band: a warning over the threshold, an error in the force and emergency bands", () => {
    expect(panel(status({}, { band: "below" }))[1]?.[0]?.tone).toBe("text")
    expect(panel(status({}, { band: "execute" }))[1]?.[0]?.tone).toBe("warning")
    expect(panel(status({}, { band: "force" }))[1]?.[0]?.tone).toBe("error")
    expect(panel(status({}, { band: "emergency" }))[1]?.[0]?.tone).toBe("error")
  })

  it("shows the last execute pass, the historian's tiers and the queued drops", () => {
    const text = panelText(
      panel(
        status({
          queuedDrops: [4, 7],
          lastExecute: {
            seq: 6,
            at: NOW - 120_000,
            reason: "threshold",
            usageBefore: 41_000,
            usageAfter: 22_500,
            dropped: [3],
            tierChanges: [],
            firstDivergence: 100,
            cost: null,
            saved: null,
            callsSince: 2,
          },
          historian: { strategy: "canonical", compartments: 5, folded: 4, modelTiers: 0, tiers: { DENSE: 2, COMPACT: 2 }, lastError: null },
        }),
      ),
    )
    expect(text).toContain("Queued drops: 2 · §4§ §7§")
    expect(text).toContain("Last execute #6, 2 min ago\n  41.0k → 22.5k tokens, 1 drop")
    expect(text).toContain("Historian (canonical): 4 of 5 folded\n  2 DENSE · 2 COMPACT")
  })

  it("shows the session's cost against the host alone, the list it is priced under, and the last execute's cost and saving", () => {
    const lastExecute: StatusData["lastExecute"] = {
      seq: 6,
      at: NOW - 120_000,
      reason: "threshold",
      usageBefore: 41_000,
      usageAfter: 22_500,
      dropped: [3],
      tierChanges: [],
      firstDivergence: 100,
      cost: 23_000,
      saved: 5_550,
      callsSince: 2,
    }
    const estimate = (withPlugin: number, hostAlone: number | null, origin: "family" | "unknown-provider"): StatusData["costEstimate"] => ({
      pricing: {
        prices: { list: "anthropic-5m", origin, prices: { uncached: 1, cachedRead: 0.1, cacheWrite: 1.25 }, overridden: [], problem: null },
        cacheTtlMs: 300_000,
        model: "anthropic/claude-sonnet-4",
      },
      calls: 40,
      withPlugin,
      hostAlone,
      lastExecute: { seq: 6, cost: 23_000, savesPerCall: 1_850, savedSoFar: 5_550 },
    })
    const saving = panel(status({ lastExecute, costEstimate: estimate(181_234, 292_310, "family") }))
    expect(panelText(saving)).toContain("Cost ~181k vs ~292k alone (-38%)\n  anthropic-5m prices\n  execute ~23.0k, saves ~1.9k/call")
    expect(saving.find((line) => line[0]?.text.startsWith("Cost "))?.[0]?.tone).toBe("text")
    // Dearer than the host alone: said in the warning tone; an unknown provider's list is named as such.
    const dearer = panel(status({ lastExecute, costEstimate: estimate(9_100, 8_000, "unknown-provider") }))
    expect(panelText(dearer)).toContain("Cost ~9.1k vs ~8.0k alone (+14%)\n  anthropic-5m (unknown provider)")
    expect(dearer.find((line) => line[0]?.text.startsWith("Cost "))?.[0]?.tone).toBe("warning")
    expect(panelText(panel(status({ costEstimate: estimate(500, null, "family") })))).toContain("Cost ~500\n  anthropic-5m prices\nHistorian")
  })

  it("says apart, in the error tone, that the provider rejected a request over its reasoning", () => {
    const rejected = { ...error(NOW - 5_000, "provider", "the provider rejected a request over its reasoning state (HTTP 400): ..."), code: "provider_rejected_reasoning" }
    const lines = panel(status({ errors: [rejected, error(NOW - 30_000, "ctx_reduce", "store busy")] }))
    const text = panelText(lines)
    expect(text).toContain("! Provider rejected a request\n  (reasoning), 5s ago: /ctx-status")
    expect(lines.find((line) => line[0]?.text.startsWith("! Provider"))?.[0]?.tone).toBe("error")
    // The rejection is not counted among the internal errors.
    expect(text).toContain("! 1 internal error, newest 30s ago")
  })

  it("warns about internal errors of the last hour with the newest one, and leaves older ones to /ctx-status", () => {
    const recent = status({ errors: [error(NOW - 30_000, "ctx_reduce", "store busy"), error(NOW - 600_000, "transform", "x")] })
    const lines = panel(recent)
    expect(panelText(lines)).toContain("! 2 internal errors, newest 30s ago\n  ctx_reduce: store busy")
    expect(lines.find((line) => line[0]?.text.startsWith("!"))?.[0]?.tone).toBe("warning")
    expect(panelText(panel(status({ errors: [error(NOW - 2 * 3_600_000, "transform", "old")] })))).not.toContain("!")
  })

  it("warns about config problems with the first one (the defaults apply where a value was refused)", () => {
    const problems = ["/p/magic-context.jsonc: execute_threshold: 150 is not a number from 1 to 99", "/p/magic-context.jsonc: x: unknown key"]
    const text = panelText(panel(status({ configProblems: problems })))
    expect(text).toContain("! 2 config problems (defaults apply)\n  /p/magic-context.jsonc: execute_t…")
    expect(panelText(panel(status({ configProblems: [] })))).not.toContain("config problem")
  })

  it("says what it knows before the first pass, without a store, for an unknown session and for an unreadable store", () => {
    expect(panelText(panel(status({ lastPass: null })))).toBe("magic-context\nNo pass yet (12 tags stored).")
    expect(panelText(sidebarPanel({ kind: "no-store", file: "/x/magic-context.db" }, { now: NOW }))).toBe(
      "magic-context\nNo store yet: it is created at the\nfirst model call.",
    )
    expect(panelText(sidebarPanel({ kind: "no-session" }, { now: NOW }))).toBe("magic-context\nNothing stored for this session yet.")
    const unreadable = sidebarPanel({ kind: "unreadable", message: "/x/magic-context.db has schema version 9, but this magic-context understands versions up to 4" }, { now: NOW })
    expect(unreadable.slice(1).every((line) => line[0]?.tone === "error")).toBe(true)
    expect(panelText(unreadable)).toBe(
      "magic-context\n! Cannot read the store:\n/x/magic-context.db has schema\nversion 9, but this magic-context\nunderstands versions up to 4",
    )
  })

  it("is deterministic: the same status and clock give the same lines", () => {
    expect(JSON.stringify(panel(status()))).toBe(JSON.stringify(panel(status())))
  })
})

describe("shortTokens", () => {
  it.each([
    [0, "0"],
    [812, "812"],
    [14_150, "14.2k"],
    [99_949, "99.9k"],
    [142_300, "142k"],
    [1_250_000, "1.3M"],
    [-5, "0"],
  ])("writes %d as %s", (n, text) => {
    expect(shortTokens(n)).toBe(text)
  })
})
