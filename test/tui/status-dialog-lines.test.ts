import { describe, expect, it } from "vitest"
import { formatStatus } from "../../src/status/format-status.js"
import type { StatusData } from "../../src/status/status-data.js"
import { NO_SESSION_OPEN, STATUS_DIALOG_TITLE, statusDialogLines } from "../../src/tui/status-dialog-lines.js"
import { BREAKDOWN } from "../status/breakdown-fixture.js"

const NOW = 1_700_000_000_000

const STATUS: StatusData = {
  sessionId: "ses_dialog",
  title: "Fix the build",
  lastPass: {
    seq: 3,
    at: NOW - 5_000,
    decision: "replay",
    reason: "below-threshold",
    band: "below",
    usageTokens: 30_000,
    windowTokens: 60_000,
    breakdown: BREAKDOWN,
    nudge: null,
  },
  thresholdPercent: 65,
  lastExecute: null,
  queuedDrops: [4, 9],
  tags: { total: 12, dropped: 1 },
  historian: { strategy: "canonical", compartments: 0, folded: 0, modelTiers: 0, tiers: {}, lastError: null },
  history: null,
  pins: 0,
  errors: [{ sessionId: "ses_dialog", at: NOW - 2_000, hook: "event", code: null, message: "database is locked", stack: null }],
  hostCompaction: null,
  cost: { calls: 2, cost: 41_000, promptTokens: 52_000, cachedTokens: 11_000 },
}

describe("statusDialogLines", () => {
  it("is the report of magic-context status: its first line the title, the rest its lines when they fit", () => {
    const report = formatStatus(STATUS, NOW).split("\n")
    const { title, lines } = statusDialogLines({ kind: "status", status: STATUS }, { now: NOW, width: 200 })
    expect(title).toBe("magic-context status: session ses_dialog (Fix the build)")
    expect(title).toBe(report[0])
    // The blank line under the report's first line is the dialog's own gap under its title.
    expect(lines).toEqual(report.slice(2))
  })

  it.each([40, 60, 88])("breaks every line to %i columns, continuing under its own indentation plus two", (width) => {
    const report = formatStatus(STATUS, NOW).split("\n").slice(2)
    const { lines } = statusDialogLines({ kind: "status", status: STATUS }, { now: NOW, width })
    for (const line of lines) expect([...line].length).toBeLessThanOrEqual(width)
    // Nothing is lost: the rows hold the report's characters in order (a word longer than a row is cut, not dropped).
    const characters = (text: readonly string[]) => text.join("").replace(/\s/g, "")
    expect(characters(lines)).toBe(characters(report))
    const long = report.find((line) => line.startsWith("Prompt cost so far")) as string
    const start = lines.findIndex((line) => line.startsWith("Prompt cost so far") && long.startsWith(line))
    expect(start).toBeGreaterThanOrEqual(0)
    expect(lines[start + 1]).toMatch(/^ {2}\S/)
  })

  it("cuts a word longer than a row into pieces of a row", () => {
    const status = { ...STATUS, errors: [{ ...STATUS.errors[0]!, message: "x".repeat(70) }] }
    const { lines } = statusDialogLines({ kind: "status", status }, { now: NOW, width: 30 })
    expect(lines.every((line) => [...line].length <= 30)).toBe(true)
    expect(lines.join("").replaceAll(" ", "")).toContain("x".repeat(70))
  })

  it.each([
    [{ kind: "no-store", file: "/tmp/x/magic-context.db" } as const, "No store yet: it is created at the first model call."],
    [{ kind: "no-session" } as const, "Nothing stored for this session yet."],
    [{ kind: "unreadable", message: "database disk image is malformed" } as const, "! Cannot read the store: database disk image is malformed"],
    [{ kind: "no-session-open" } as const, NO_SESSION_OPEN],
  ])("says why there is no report (%o), under the plain title", (input, sentence) => {
    const { title, lines } = statusDialogLines(input, { now: NOW, width: 116 })
    expect(title).toBe(STATUS_DIALOG_TITLE)
    expect(lines.join(" ")).toBe(sentence)
  })
})
