import { describe, expect, it } from "vitest"
import { formatMemoryStatus, type MemoryStatus } from "../../src/status/format-memory-status.js"

const NOW = 1_700_000_000_000

function status(overrides: Partial<MemoryStatus>): MemoryStatus {
  return { sessionId: "ses_m", store: null, unreadable: null, lastPass: null, configProblems: [], errors: [], ...overrides }
}

describe("formatMemoryStatus", () => {
  it("gives the last pass of this process, the config problems and the recent errors", () => {
    const report = formatMemoryStatus(
      status({
        lastPass: { seq: 7, usagePercent: 41.26, usableTokens: 59_904, thresholdPercent: 65 },
        configProblems: ['/p/magic-context.jsonc: key "execute_threshold" has value 5, expected number to be >=20'],
        errors: [{ sessionId: "ses_m", at: NOW - 3_000, hook: "experimental.chat.messages.transform", code: null, message: "database is locked", stack: null }],
      }),
      NOW,
    )
    expect(report.split("\n")).toEqual([
      "magic-context status: session ses_m (from memory: the store could not be read)",
      "",
      "Last pass in this process: #7, usage 41.3% of 59,904 usable tokens, execute threshold 65%",
      "",
      "Config problems (the defaults apply where a value was refused):",
      '  /p/magic-context.jsonc: key "execute_threshold" has value 5, expected number to be >=20',
      "",
      "Recent internal errors (the session went on unchanged):",
      "  3s ago experimental.chat.messages.transform: database is locked",
    ])
  })

  it("says why when the store opened but the report could not be read from it", () => {
    const report = formatMemoryStatus(status({ unreadable: "no such column: x" }), NOW)
    expect(report.split("\n").slice(2, 5)).toEqual([
      "The report could not be read from the store: no such column: x",
      "",
      "Last pass in this process: none (no pass of this session has run since the host started)",
    ])
    expect(report.endsWith("Recent internal errors: none")).toBe(true)
  })
})
