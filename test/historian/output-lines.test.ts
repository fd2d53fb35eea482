import { describe, expect, it } from "vitest"
import { documentText, ruleLines } from "../../src/historian/document-rules.js"
import {
  ERROR_CAUSE_LINES,
  keptAddedLines,
  keptOutputLines,
  MAX_KEPT_LINE_CHARS,
  MAX_KEPT_LINES,
  outputLines,
} from "../../src/historian/output-lines.js"
import type { OutputKeep } from "../../src/session/host-tools.js"
import { ALL_RECOGNIZERS, recognizersWithout, type Recognizers } from "../../src/session/recognizers.js"

const ESC = "\u001b"

/** A read tool's output as OpenCode 1.18 returns it: path, type, numbered lines, end note. */
function readOutput(path: string, fileLines: readonly string[]): string {
  const numbered = fileLines.map((line, index) => `${index + 1}: ${line}`)
  return [`<path>${path}</path>`, "<type>file</type>", "<content>", ...numbered, "", `(End of file - total ${fileLines.length} lines)`, "</content>"].join("\n")
}

/** A pty_read output as the opencode-pty plugin returns it: `00001| ` line numbers inside a pty_output element. */
function ptyOutput(id: string, bufferLines: readonly string[]): string {
  const numbered = bufferLines.map((line, index) => `${String(index + 1).padStart(5, "0")}| ${line}`)
  return [`<pty_output id="${id}" status="exited">`, ...numbered, "", `(End of buffer - total ${bufferLines.length} lines)`, "</pty_output>"].join("\n")
}

const WEBHOOK_DOC = readOutput("/home/dev/relay/docs/webhooks.md", [
  "# Webhook delivery",
  "",
  "Every delivery carries an `X-Relay-Signature` header.",
  "Receivers must answer within the delivery window, or the attempt counts as lost.",
  "The per-attempt timeout defaults to 30 seconds.",
  "Signatures use scheme version 2 since relay 1.8.0.",
  "The /v1/deliveries endpoint is deprecated in favour of /v2/deliveries.",
  "Status page: https://status.example.dev/relay",
  "Delivery bodies are JSON objects.",
])

const RETRY_CONFIG = readOutput("/home/dev/relay/src/retry-config.ts", [
  'import { env } from "./env.js"',
  "",
  "export const MAX_ATTEMPTS = 6",
  "export const BACKOFF_BASE_MS = 500",
  "export function backoff(attempt: number): number {",
  "  return BACKOFF_BASE_MS * 2 ** attempt",
  "}",
])

const ISSUE_CREATED = [
  "Creating issue in team Platform…",
  'Created PLAT-1234 "Retry webhook deliveries with backoff"',
  "Assigned to: dev@example.com",
  "Labels: backend, webhooks",
  "Done.",
].join("\n")

const TEST_RUN = [
  " RUN  v4.1.12 /home/dev/relay",
  " ✓ test/retry.test.ts (6 tests) 14ms",
  " ✓ test/sign.test.ts (3 tests) 5ms",
  "",
  " Test Files  2 passed (2)",
  "      Tests  9 passed (9)",
  "   Start at  10:02:11",
  "   Duration  412ms",
].join("\n")

const MIGRATION_FAILURE = [
  "> relay@0.4.0 migrate",
  "> node scripts/migrate.js",
  "Error: migration 0007_retry_columns failed",
  '  cause: column "next_attempt_at" already exists',
  "Rolled back 1 migration.",
  "Connection pool drained.",
  "Bye.",
].join("\n")

const kept = (keep: OutputKeep, output: string, options: { failed?: boolean; recognizers?: Recognizers } = {}): string[] =>
  keptOutputLines({ keep, output, failed: options.failed ?? false, recognizers: options.recognizers ?? ALL_RECOGNIZERS })

describe("keptOutputLines: each recognizer keeps its line, and only it", () => {
  it.each([
    ["error-cause", "command", MIGRATION_FAILURE, true, 'cause: column "next_attempt_at" already exists'],
    ["doc-rule-lines", "document", WEBHOOK_DOC, false, "Receivers must answer within the delivery window, or the attempt counts as lost."],
    ["doc-limit-lines", "document", WEBHOOK_DOC, false, "The per-attempt timeout defaults to 30 seconds."],
    ["doc-version-lines", "document", WEBHOOK_DOC, false, "Signatures use scheme version 2 since relay 1.8.0."],
    ["doc-decision-lines", "document", WEBHOOK_DOC, false, "The /v1/deliveries endpoint is deprecated in favour of /v2/deliveries."],
    ["code-setting-lines", "document", RETRY_CONFIG, false, "export const MAX_ATTEMPTS = 6"],
    ["id-lines", "command", ISSUE_CREATED, false, 'Created PLAT-1234 "Retry webhook deliveries with backoff"'],
    ["id-lines", "document", WEBHOOK_DOC, false, "Status page: https://status.example.dev/relay"],
    ["result-summaries", "command", TEST_RUN, false, "Test Files  2 passed (2)"],
  ] as const)("%s keeps a line of a %s output", (name, keep, output, failed, line) => {
    expect(kept(keep, output, { failed })).toContain(line)
    expect(kept(keep, output, { failed, recognizers: recognizersWithout([name]) })).not.toContain(line)
  })

  it("keeps no line of a document that no recognizer wants", () => {
    const lines = kept("document", WEBHOOK_DOC)
    expect(lines).not.toContain("Delivery bodies are JSON objects.")
    expect(lines).not.toContain("# Webhook delivery")
    expect(lines.some((line) => line.startsWith("<path>") || line.startsWith("(End of file"))).toBe(false)
  })

  it("keeps a document's lines verbatim and without read line numbers", () => {
    expect(kept("document", RETRY_CONFIG)).toEqual(["export const MAX_ATTEMPTS = 6", "export const BACKOFF_BASE_MS = 500"])
  })

  it.each([
    ["OpenCode 1.18", "12: export const POOL_SIZE = 8"],
    ["older OpenCode", "00012| export const POOL_SIZE = 8"],
    ["cat -n", "    12\texport const POOL_SIZE = 8"],
    ["Claude Code", "    12→export const POOL_SIZE = 8"],
  ])("strips %s read line numbers", (_, line) => {
    expect(kept("document", `intro\n${line}\noutro`)).toEqual(["export const POOL_SIZE = 8"])
  })

  // Bug (src/historian/output-lines.ts keptOutputLines): the whole error block is gated on `error-cause`, so with that
  // rule switched off DENSE drops the error line itself too, not only the cause below it (error-lines.ts's `cause`
  // option gates only the cause). `lab --without error-cause` therefore also measures the loss of the error line.
  it.fails("keeps the error line itself when error-cause is switched off", () => {
    const lines = kept("command", MIGRATION_FAILURE, { failed: true, recognizers: recognizersWithout(["error-cause"]) })
    expect(lines).toContain("Error: migration 0007_retry_columns failed")
  })
})

describe("keptOutputLines: terminal output", () => {
  it("keeps the cause three lines below a pty error line, escape codes and line numbers stripped", () => {
    const output = ptyOutput("pty_7f3a2c1b", [
      `${ESC}[36m> relay@0.4.0 migrate${ESC}[39m`,
      "",
      `${ESC}[31mError: migration 0007_retry_columns failed${ESC}[39m`,
      `${ESC}[2m    at runMigration (scripts/migrate.js:41:11)${ESC}[22m`,
      `${ESC}[2m    at async main (scripts/migrate.js:88:3)${ESC}[22m`,
      `${ESC}[33m  cause: column "next_attempt_at" of relation "deliveries" already exists${ESC}[39m`,
    ])
    const lines = kept("command", output, { failed: true })
    // The error, the first frame of its stack (where it was thrown), and the cause; not the other frames.
    expect(lines.slice(0, 3)).toEqual([
      "Error: migration 0007_retry_columns failed",
      "at runMigration (scripts/migrate.js:41:11)",
      'cause: column "next_attempt_at" of relation "deliveries" already exists',
    ])
    expect(lines.join("\n")).not.toMatch(/\u001b|\[\d+m|00006\||at async main/)
  })

  it("keeps a cause three lines below the error when the lines between are context, not frames", () => {
    const output = [
      "[1;31merror[0m: could not compile `relay-worker`",
      "  --> src/retry.rs:41:9",
      "   |",
      "   = note: expected `u32`, found `i64`",
      "warning: build failed, waiting for other jobs to finish...",
      "exit status 101",
      "",
    ].join("\n")
    const lines = kept("command", output, { failed: true })
    expect(lines).toContain("= note: expected `u32`, found `i64`")
    expect(lines[0]).toBe("error: could not compile `relay-worker`")
  })

  it.each(["command", "document", "generic", "search", "edit", "none"] as const)("keeps nothing of only escape codes (%s)", (keep) => {
    const output = `${ESC}[2J${ESC}[H${ESC}[?25l${ESC}]0;relay${ESC}\u0007\r\n${ESC}[K[0m\r\n${ESC}[?25h`
    expect(kept(keep, output)).toEqual([])
    expect(kept(keep, output, { failed: true })).toEqual([])
  })

  it("keeps nothing of an empty output", () => {
    expect(kept("generic", "")).toEqual([])
    expect(kept("command", "\n\n\n", { failed: true })).toEqual([])
  })
})

describe("keptOutputLines: bounds", () => {
  it.each(Object.entries(MAX_KEPT_LINES) as [OutputKeep, number][])("keeps at most the %s limit (%i lines)", (keep, limit) => {
    const output = Array.from(
      { length: 40 },
      // A source file's lines count as comments (its code states no rules).
      (_, index) => `${keep === "code" ? "// " : ""}PLAT-${100 + index} must be closed; 3 passed; max ${index} retries; export const K${index} = ${index}`,
    ).join("\n")
    // An edit's output only confirms it (its lines come from the input); a todo list's repeats the input.
    expect(kept(keep, output)).toHaveLength(keep === "edit" || keep === "none" ? 0 : limit)
    expect(kept(keep, output, { failed: true }).length).toBeLessThanOrEqual(Math.max(limit, ERROR_CAUSE_LINES + 1))
  })

  it("keeps the error block of a failed call even for a row that keeps nothing (todowrite)", () => {
    const lines = kept("none", "Error: todos[0].status must be one of pending, in_progress, completed\n  received: done", { failed: true })
    expect(lines).toEqual(["Error: todos[0].status must be one of pending, in_progress, completed", "received: done"])
    expect(lines.length).toBeLessThanOrEqual(ERROR_CAUSE_LINES + 1)
  })

  it("cuts a long line at a word boundary and marks the cut", () => {
    const line = `The per-attempt timeout defaults to 30 seconds ${"and then some more words ".repeat(20)}`.trim()
    const [first] = kept("document", line)
    expect(first?.endsWith("…")).toBe(true)
    expect(first?.length ?? 0).toBeLessThanOrEqual(MAX_KEPT_LINE_CHARS + 1)
    expect(line.startsWith(first?.slice(0, -1) ?? "?")).toBe(true)
  })

  it("keeps lines in output order, whatever their priority", () => {
    const output = ["Requires relay-client 2.4.0 or later.", "filler", "Deliveries must be idempotent.", "filler", "export const RETRIES = 6"].join("\n")
    expect(kept("document", output)).toEqual(["Requires relay-client 2.4.0 or later.", "Deliveries must be idempotent.", "export const RETRIES = 6"])
  })

  it("keeps a repeated line once", () => {
    expect(kept("document", "Tokens must be rotated.\nx\nTokens must be rotated.")).toEqual(["Tokens must be rotated."])
  })

  it("keeps a search's first hits", () => {
    const output = ["src/retry.ts:12: export const MAX_ATTEMPTS = 6", "src/worker.ts:40: retry(job, MAX_ATTEMPTS)", "src/a.ts:1: x", "src/b.ts:2: y"].join("\n")
    expect(kept("search", output)).toEqual(output.split("\n").slice(0, 3))
  })

  it("keeps a generic output's first and last lines", () => {
    const output = ["first line", "second line", "third line", "fourth line", "fifth line", "sixth line"].join("\n")
    expect(kept("generic", output)).toEqual(["first line", "second line", "fifth line", "sixth line"])
  })

  it("reads a 10 MB output in bounded time and keeps bounded lines", () => {
    const output = "only\n".repeat(2_000_000)
    expect(output.length).toBe(10_000_000)
    const started = performance.now()
    const lines = kept("document", output)
    const log = kept("command", `${"2026-03-02T10:00:00Z req=3f2a9c1e-1b2c-4d5e-8f90-123456789abc GET /v1 200\n".repeat(140_000)}Error: boom\n`, { failed: true })
    expect(performance.now() - started).toBeLessThan(500)
    expect(lines).toEqual(["only"])
    expect(log.length).toBeLessThanOrEqual(ERROR_CAUSE_LINES + 1)
    expect(log).toContain("Error: boom")
  })
})

describe("keptAddedLines", () => {
  const added = ["export const MAX_ATTEMPTS = 6", "", "export function retry(job: Job) {", "  return queue.push(job)", "}", "});"]

  it("keeps an edit's setting and first lines, trimmed, with no bare brackets", () => {
    expect(keptAddedLines(added, 4, ALL_RECOGNIZERS)).toEqual([
      "export const MAX_ATTEMPTS = 6",
      "export function retry(job: Job) {",
      "return queue.push(job)",
    ])
  })

  it("prefers setting and rule lines over the first ones when over the limit, in their order", () => {
    const lines = ["import a from 'a'", "import b from 'b'", "// callers must not retry a 4xx", "const TIMEOUT_MS = 30000"]
    expect(keptAddedLines(lines, 2, ALL_RECOGNIZERS)).toEqual(["// callers must not retry a 4xx", "const TIMEOUT_MS = 30000"])
  })

  it("strips escape codes from added lines", () => {
    expect(keptAddedLines([`${ESC}[32mexport const A = 1${ESC}[0m`], 4, ALL_RECOGNIZERS)).toEqual(["export const A = 1"])
  })

  it("keeps nothing with edit-added-lines switched off", () => {
    expect(keptAddedLines(added, 4, recognizersWithout(["edit-added-lines"]))).toEqual([])
  })
})

describe("ruleLines", () => {
  it("keeps an attached document's rule and limit lines in order, bounded", () => {
    const doc = readOutput("docs/spec.md", [
      "# Relay spec",
      "Deliveries must be signed with HMAC-SHA256.",
      "A receiver gets at most 6 attempts.",
      "The retry budget is generous.",
      "Never retry a 4xx answer.",
      "if (attempt > MAX) {",
      "Only",
    ])
    expect(ruleLines(doc, 12)).toEqual([
      "Deliveries must be signed with HMAC-SHA256.",
      "A receiver gets at most 6 attempts.",
      "Never retry a 4xx answer.",
    ])
    expect(ruleLines(doc, 2)).toHaveLength(2)
  })

  it("keeps nothing of a document with no rules, and of only escape codes", () => {
    expect(ruleLines("# Changelog\n\nFixed a typo in the README.", 12)).toEqual([])
    expect(ruleLines(`${ESC}[2J${ESC}[H`, 12)).toEqual([])
  })
})

describe("documentText", () => {
  it("removes every read tool's line numbers and escape codes, keeping the lines", () => {
    const read = ["1: ## Rules", "00002| - Never retry a 4xx.", "     3\t- Sign every delivery.", "     4→Done.", `${ESC}[1m5: bold${ESC}[0m`].join("\n")
    expect(documentText(read)).toBe("## Rules\n- Never retry a 4xx.\n- Sign every delivery.\nDone.\nbold")
  })

  it("leaves numbered list items and times alone", () => {
    expect(documentText("1. first\n10:30 standup")).toBe("1. first\n10:30 standup")
  })
})

describe("outputLines: a source file the agent read", () => {
  const source = [
    "defmodule Billing.Retry do",
    "  require Logger",
    "  # The gateway bans a key after 5 failed attempts in a minute: never retry more than 4 times.",
    "  @max_attempts 4",
    '  def render(assigns), do: ~H"<div style=\"max-height: 100px\">required</div>"',
    "end",
  ].join("\n")

  it("reads its comments as a document's lines and its code only for settings", () => {
    const { kept, key } = outputLines({ keep: "code", output: source, failed: false, recognizers: ALL_RECOGNIZERS })
    expect(kept).toEqual(["# The gateway bans a key after 5 failed attempts in a minute: never retry more than 4 times.", "@max_attempts 4"])
    expect(key).toEqual(["# The gateway bans a key after 5 failed attempts in a minute: never retry more than 4 times."])
  })

  it("reads the same lines as a document's when the file is not code (the rule words of code lines count there)", () => {
    const { kept } = outputLines({ keep: "document", output: source, failed: false, recognizers: ALL_RECOGNIZERS })
    expect(kept).toContain("require Logger")
  })
})

describe("outputLines: key lines (COMPACT's Noted)", () => {
  it("keeps a search's first hits for DENSE but takes none of them as a key line (their paths are identifiers)", () => {
    const hits = "src/billing/invoice.ts\nsrc/billing/credit-note.ts\nsrc/billing/tax.ts\nsrc/billing/vat.ts"
    const { kept, key } = outputLines({ keep: "search", output: hits, failed: false, recognizers: ALL_RECOGNIZERS })
    expect(kept).toEqual(["src/billing/invoice.ts", "src/billing/credit-note.ts", "src/billing/tax.ts"])
    expect(key).toEqual([])
  })

  it("never takes a stack frame as the last lines of a command: how it ended is the line before the frames", () => {
    const crash = ["Starting worker", "TypeError: cannot read properties of undefined (reading 'id')", "    at claim (src/queue.js:41:11)", "    at async run (src/queue.js:88:3)", "    at async main (src/index.js:12:1)"].join("\n")
    const { kept } = outputLines({ keep: "command", output: crash, failed: true, recognizers: ALL_RECOGNIZERS })
    expect(kept).toContain("at claim (src/queue.js:41:11)")
    expect(kept).not.toContain("at async main (src/index.js:12:1)")
    expect(kept).not.toContain("at async run (src/queue.js:88:3)")
  })

  const fetchedTable = [
    "## Query parameters",
    "| parameter | required | description |",
    "| --- | --- | --- |",
    "| `station` | yes | Station id, e.g. `GB-0113`. |",
    "| `days` | no | Number of days, default 1. Max range per request: 7 days. |",
    "## Limits",
    "| Free | 20 requests per rolling 24 h per API key | 1/s |",
  ].join("\n")

  it("never takes a table's header row (column names state no fact) and takes the rows that carry limits", () => {
    const { kept, key } = outputLines({ keep: "document", output: fetchedTable, failed: false, recognizers: ALL_RECOGNIZERS })
    expect(kept).toContain("| parameter | required | description |")
    expect(key).toEqual([
      "| `days` | no | Number of days, default 1. Max range per request: 7 days. |",
      "| Free | 20 requests per rolling 24 h per API key | 1/s |",
    ])
  })
})
