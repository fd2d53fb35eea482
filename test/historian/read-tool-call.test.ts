import { describe, expect, it } from "vitest"
import { readToolCall } from "../../src/historian/read-tool-call.js"
import { ALL_RECOGNIZERS, recognizersWithout } from "../../src/session/recognizers.js"
import type { HostToolPart } from "../../src/transcript/host-message.js"
import { assistantMessage, completed, failed, tool } from "../helpers/host-messages.js"

/** The failing test run of fixtures/opencode-session (message 5), as OpenCode records it. */
const OUTPUT =
  "node:internal/modules/run_main:123\n    triggerUncaughtException(\n    ^\n\n" +
  "AssertionError [ERR_ASSERTION]: Expected values to be strictly equal:\n+ actual - expected\n\n+ 'Hello-World'\n" +
  "- 'hello-world'\n    at file:///home/user/slugify-demo/test/slugify.test.js:4:8\n"

const testRun = (compacted?: number): HostToolPart => {
  const state = completed({ command: "node test/slugify.test.js" }, OUTPUT)
  if (state.status !== "completed") throw new Error("expected a completed state")
  const time = compacted === undefined ? state.time : { ...state.time, compacted }
  const [part] = assistantMessage({ id: "m5", parts: [tool("t5", "bash", { ...state, time })] }).parts
  if (part?.type !== "tool") throw new Error("expected a tool part")
  return part
}

const shellCall = (command: string, output: string): HostToolPart => {
  const [part] = assistantMessage({ id: "m9", parts: [tool("t9", "bash", completed({ command }, output))] }).parts
  if (part?.type !== "tool") throw new Error("expected a tool part")
  return part
}

describe("readToolCall: a grep run through a shell", () => {
  const hits = [
    "src/billing/invoice.ts:14:import { roundHalfEven } from \"./rounding.js\"",
    "src/billing/credit-note.ts:9:import { roundHalfEven } from \"./rounding.js\"",
    "src/billing/tax.ts:3:import { roundHalfEven } from \"./rounding.js\"",
    "src/billing/vat.ts:21:import { roundHalfEven } from \"./rounding.js\"",
  ].join("\n")

  it("keeps its first hits as a search tool's, and a hit with its line text as a key line", () => {
    const reading = readToolCall(shellCall('cd /repo && grep -rn "roundHalfEven" src/billing', hits))
    expect(reading.keptLines).toEqual(hits.split("\n").slice(0, 3))
    expect(reading.keyLines).toEqual(hits.split("\n").slice(0, 3))
  })

  it("puts the hit that declares the name first, in the hits DENSE keeps and in the locations", () => {
    const usages = [
      "src/api/routes.ts:2:import { handleRefund } from \"./refunds.js\"",
      "src/api/routes.ts:19:router.post(\"/refunds\", handleRefund)",
      "src/api/refunds.test.ts:4:import { handleRefund } from \"./refunds.js\"",
      "src/api/refunds.ts:88:export async function handleRefund(req: Request, res: Response) {",
    ].join("\n")
    const reading = readToolCall(shellCall('grep -rn "handleRefund" src/api', usages))
    expect(reading.keptLines).toContain("src/api/refunds.ts:88:export async function handleRefund(req: Request, res: Response) {")
    expect(reading.locations.map((location) => location.text)).toContain("src/api/refunds.ts:88")
    const without = readToolCall(shellCall('grep -rn "handleRefund" src/api', usages), recognizersWithout(["definition-hits"]))
    expect(without.locations.map((location) => location.text)).not.toContain("src/api/refunds.ts:88")
  })

  it("reads another shell command's output as a command's, and a grep as one only with grep-hits on", () => {
    expect(readToolCall(shellCall("npm test", hits)).keyLines).toEqual([])
    const without = readToolCall(shellCall('grep -rn "roundHalfEven" src/billing', hits), recognizersWithout(["grep-hits"]))
    expect(without.keyLines).toEqual([])
  })
})

describe("readToolCall: a document printed through a shell", () => {
  const page = [
    "# deployctl reference",
    "## deployctl rollout",
    "- `--wait <duration>` — block until the rollout settles (default `10m`).",
    "Exit codes: 0 on success; a rollout that did not settle exits with code 3.",
    "Error: E_LOCKED means another rollout holds the environment; retry after it finishes.",
  ].join("\n")

  it("reads a fetched page as content, not as a failed call, with shell-documents on", () => {
    const reading = readToolCall(shellCall("curl -sL https://docs.example.test/deployctl/reference.md", page))
    expect(reading.status).toBe("ok")
    expect(reading.errorLines).toEqual([])
    const without = readToolCall(shellCall("curl -sL https://docs.example.test/deployctl/reference.md", page), recognizersWithout(["shell-documents"]))
    expect(without.status).toBe("error")
  })

  it("still judges an API request and a command's own output", () => {
    expect(readToolCall(shellCall('curl -s https://api.example.test/v1/rollouts -H "Authorization: Bearer $T"', page)).status).toBe("error")
    expect(readToolCall(shellCall("deployctl rollout --wait 5m", page)).status).toBe("error")
  })
})

describe("readToolCall: the lines DENSE keeps of a page printed through a shell", () => {
  const reference = [
    "# snapctl reference",
    "## snapctl export",
    "- `--since <time>` — start of the range; a range older than 30 days fails with exit code 5.",
    "- `--until <time>` — end of the range, at most 12 hours after `--since`; a longer range fails with exit code 4.",
    "- `--format <csv|ndjson>` — output format, default `ndjson`.",
    "## snapctl restore",
    "- `--target <db>` — the database to restore into; it must be empty, or the restore stops with exit code 7.",
    "- `--verify` — compare row counts after the restore; a mismatch gives exit code 8.",
    "## snapctl prune",
    "- `--keep <n>` — snapshots kept per database; `--keep 0` is refused with exit code 2.",
    "- `--dry-run` — list what would be pruned; exit code 0 even when nothing matches.",
    "Downloads: https://dl.snapctl.example.test/3.1/snapctl-linux-amd64",
  ].join("\n")
  const url = "https://docs.snapctl.example.test/cli/reference.md"

  it("keeps as many lines as a read page with printed-page-lines on, a command's four without", () => {
    const on = readToolCall(shellCall(`curl -sL ${url}`, reference)).keptLines
    const off = readToolCall(shellCall(`curl -sL ${url}`, reference), recognizersWithout(["printed-page-lines"])).keptLines
    expect(off.length).toBeLessThanOrEqual(4)
    expect(on.length).toBeGreaterThan(4)
    expect(on.length).toBeLessThanOrEqual(10)
    expect(on).toContain("- `--keep <n>` — snapshots kept per database; `--keep 0` is refused with exit code 2.")
    expect(off).not.toContain("- `--keep <n>` — snapshots kept per database; `--keep 0` is refused with exit code 2.")
  })

  it("leaves a command's own output at a command's four lines", () => {
    expect(readToolCall(shellCall("snapctl export --since 2026-01-01", reference)).keptLines.length).toBeLessThanOrEqual(4)
  })
})

describe("readToolCall: a document whose rules bind the work", () => {
  const page = [
    "# Payouts API",
    "Payouts are sent in the account's currency.",
    "A payout request may carry at most 100 transfers.",
    "Requests above 20 per second per key get `429 rate_limited`.",
    "Amounts must be integers in minor units.",
  ].join("\n")
  const call = (name: string): HostToolPart => {
    const [part] = assistantMessage({ id: "m8", parts: [tool("t8", name, completed({ url: "https://docs.example.com/payouts" }, page))] }).parts
    if (part?.type !== "tool") throw new Error("expected a tool part")
    return part
  }

  it("pins a fetched page's rule and limit lines, and only a binding row's", () => {
    expect(readToolCall(call("webfetch")).constraints).toEqual([
      "A payout request may carry at most 100 transfers.",
      "Requests above 20 per second per key get `429 rate_limited`.",
      "Amounts must be integers in minor units.",
    ])
    // An MCP tool's output is not a binding document: its lines are DENSE's, not pins.
    expect(readToolCall(call("docs_fetch-page")).constraints).toEqual([])
    expect(readToolCall(call("webfetch"), recognizersWithout(["binding-doc-rules"])).constraints).toEqual([])
  })

  it("pins nothing of a page whose fetch failed (an error page states no rules of the API)", () => {
    const [part] = assistantMessage({ id: "m6", parts: [tool("t6", "webfetch", failed({ url: "https://docs.example.com/payouts" }, page))] }).parts
    if (part?.type !== "tool") throw new Error("expected a tool part")
    expect(readToolCall(part).constraints).toEqual([])
  })

  it("pins at most six lines of one page", () => {
    const long = Array.from({ length: 20 }, (_, index) => `Field ${index} must be at most ${index + 1} characters.`).join("\n")
    const [part] = assistantMessage({ id: "m7", parts: [tool("t7", "webfetch", completed({ url: "https://docs.example.com/fields" }, long))] }).parts
    if (part?.type !== "tool") throw new Error("expected a tool part")
    expect(readToolCall(part).constraints).toHaveLength(6)
  })
})

describe("readToolCall", () => {
  it("reads the error lines and locations of an output the model read", () => {
    const reading = readToolCall(testRun())
    expect(reading.status).toBe("error")
    expect(reading.errorLines.join("\n")).toContain("Expected values to be strictly equal")
  })

  it("answers a call read before from its memory only while the call reads the same (the memory is a cache)", () => {
    const input = { command: "node test/slugify.test.js" }
    const part = (state: HostToolPart["state"]): HostToolPart => ({ ...testRun(), state })
    const first = readToolCall(part(completed(input, OUTPUT)))
    // A later pass's copy: a new state object around the same input and output, as a replay's snapshots are.
    expect(readToolCall(part(completed(input, OUTPUT)))).toBe(first)
    // The same input object with another output, another status, or other recognizers: read again, as a fresh call.
    const fixed = readToolCall(part(completed(input, "1 passing\n")))
    expect(fixed).toEqual(readToolCall(part(completed({ ...input }, "1 passing\n"))))
    expect(fixed.status).toBe("ok")
    const refused = readToolCall(part(failed(input, "permission denied: node")))
    expect(refused).toEqual(readToolCall(part(failed({ ...input }, "permission denied: node"))))
    const without = recognizersWithout(["error-cause"])
    expect(readToolCall(part(completed(input, OUTPUT)), without)).toEqual(readToolCall(part(completed({ ...input }, OUTPUT)), without))
    // A pruned output reads as the marker, whatever the memory holds for its input.
    const pruned = testRun(1_795_981_922_000)
    expect(readToolCall({ ...pruned, state: { ...pruned.state, input } } as HostToolPart).status).toBe("ok")
  })

  it("reads nothing from an output OpenCode pruned: the model was sent only the marker", () => {
    const reading = readToolCall(testRun(1_795_981_922_000))
    expect(reading).toMatchObject({ status: "ok", errorLines: [], commits: [], constraints: [] })
    expect(JSON.stringify(reading)).not.toContain("strictly equal")
    expect(reading.summary).toBe("bash node test/slugify.test.js")
  })
})

/** A finished call as OpenCode records it, with the host's own input key names. */
function call(name: string, input: Record<string, unknown>, output: string): HostToolPart {
  const [part] = assistantMessage({ id: "m1", parts: [tool("t1", name, completed(input, output))] }).parts
  if (part?.type !== "tool") throw new Error("expected a tool part")
  return part
}

describe("readToolCall: what each host's edit added", () => {
  it.each([
    ["OpenCode edit", "edit", { filePath: "src/retry.ts", oldString: "const RETRIES = 3", newString: "const RETRIES = 5" }],
    ["OpenCode multiedit", "multiedit", { filePath: "src/retry.ts", edits: [{ filePath: "src/retry.ts", oldString: "const RETRIES = 3", newString: "const RETRIES = 5" }] }],
    ["Claude Code Edit", "Edit", { file_path: "src/retry.ts", old_string: "const RETRIES = 3", new_string: "const RETRIES = 5" }],
    ["Claude Code MultiEdit", "MultiEdit", { file_path: "src/retry.ts", edits: [{ old_string: "const RETRIES = 3", new_string: "const RETRIES = 5" }] }],
    ["Pi edit", "edit", { path: "src/retry.ts", oldText: "const RETRIES = 3", newText: "const RETRIES = 5" }],
    ["OpenHands str_replace_editor", "str_replace_editor", { command: "str_replace", path: "src/retry.ts", old_str: "const RETRIES = 3", new_str: "const RETRIES = 5" }],
    ["OpenCode write", "write", { filePath: "src/retry.ts", content: "const RETRIES = 5\n" }],
    ["Claude Code NotebookEdit", "NotebookEdit", { notebook_path: "src/retry.ts", cell_id: "c2", new_source: "const RETRIES = 5" }],
    ["OpenCode apply_patch", "apply_patch", { patchText: "*** Begin Patch\n*** Update File: src/retry.ts\n@@\n-const RETRIES = 3\n+const RETRIES = 5\n*** End Patch" }],
  ])("reads the path and added lines of %s", (_, name, input) => {
    const reading = readToolCall(call(name, input, "Edit applied successfully."))
    expect(reading).toMatchObject({ touches: true, paths: ["src/retry.ts"], status: "ok" })
    expect(reading.added).toEqual([{ path: "src/retry.ts", lines: ["const RETRIES = 5"] }])
    expect(reading.edit?.newText).toContain("const RETRIES = 5")
  })

  it("reads each file of an apply_patch with its own added lines", () => {
    const patchText = [
      "*** Begin Patch",
      "*** Add File: src/retry-config.ts",
      "+export const MAX_ATTEMPTS = 6",
      "*** Add File: src/retry-worker.ts",
      '+import { MAX_ATTEMPTS } from "./retry-config.js"',
      "*** End Patch",
    ].join("\n")
    const reading = readToolCall(call("apply_patch", { patchText }, "Success. Updated the following files:\nA src/retry-config.ts\nA src/retry-worker.ts"))
    expect(reading.paths).toEqual(["src/retry-config.ts", "src/retry-worker.ts"])
    expect(reading.added).toEqual([
      { path: "src/retry-config.ts", lines: ["export const MAX_ATTEMPTS = 6"] },
      { path: "src/retry-worker.ts", lines: ['import { MAX_ATTEMPTS } from "./retry-config.js"'] },
    ])
  })

  it("reads nothing of a patch when the apply_patch row is switched off", () => {
    const input = { patchText: "*** Begin Patch\n*** Add File: src/a.ts\n+export const A = 1\n*** End Patch" }
    expect(readToolCall(call("apply_patch", input, "ok"), ALL_RECOGNIZERS)).toMatchObject({ touches: true, paths: ["src/a.ts"] })
    expect(readToolCall(call("apply_patch", input, "ok"), recognizersWithout(["tool:apply_patch"]))).toMatchObject({ touches: false, paths: [], added: [] })
  })
})

describe("readToolCall: plugin and MCP tools", () => {
  it("reads a pty_spawn's command line from its command and args", () => {
    const output = "<pty_spawned>\nID: pty_7f3a2c1b\nTitle: migrate\nCommand: npm run migrate\nPID: 4242\nStatus: running\n</pty_spawned>"
    const reading = readToolCall(call("pty_spawn", { command: "npm", args: ["run", "migrate"], description: "Run migrations" }, output))
    expect(reading).toMatchObject({ command: "npm run migrate", summary: "pty_spawn npm run migrate", status: "ok", isSearch: false })
  })

  it("reads the ids an MCP tool returned (an issue key, its URL)", () => {
    const output = '{"id":"9b2c1d7e-0a1b-4c2d-8e3f-1234567890ab","identifier":"PLAT-1234","url":"https://linear.app/acme/issue/PLAT-1234/retry-webhooks"}'
    const reading = readToolCall(call("linear_create_issue", { title: "Retry webhook deliveries", teamId: "platform" }, output))
    expect(reading.returnedIds).toEqual(["9b2c1d7e-0a1b-4c2d-8e3f-1234567890ab", "PLAT-1234", "https://linear.app/acme/issue/PLAT-1234/retry-webhooks"])
    expect(readToolCall(call("linear_create_issue", {}, output), recognizersWithout(["tool-ids"])).returnedIds).toEqual([])
  })

  it("reads no ids from a read-only tool's content", () => {
    const reading = readToolCall(call("read", { filePath: "docs/issues.md" }, "<path>docs/issues.md</path>\n<content>\n1: See PLAT-1234.\n</content>"))
    expect(reading.returnedIds).toEqual([])
  })
})

describe("readToolCall: where a failing test is", () => {
  const exunit = [
    "Running ExUnit with seed: 4821, max_cases: 8",
    "",
    "..",
    "",
    "  1) test rejects a token past its expiry (Gatehouse.TokenTest)",
    "     test/gatehouse/token_test.exs:58",
    "     Assertion with == failed",
    "     code:  assert Token.verify(expired) == {:error, :expired}",
    "     left:  {:ok, %{sub: \"u-17\"}}",
    "     right: {:error, :expired}",
    "",
    "Finished in 0.1 seconds",
    "3 tests, 1 failure",
  ].join("\n")

  it("keeps the location line a test runner prints just above the assertion", () => {
    const reading = readToolCall(shellCall("mix test", exunit))
    expect(reading.locations.map((location) => location.text)).toContain("test/gatehouse/token_test.exs:58")
    const without = readToolCall(shellCall("mix test", exunit), recognizersWithout(["failure-location"]))
    expect(without.locations.map((location) => location.text)).not.toContain("test/gatehouse/token_test.exs:58")
  })

  it("takes no location from lines far above the error, or from a line that says more than a place", () => {
    const far = exunit.replace("     test/gatehouse/token_test.exs:58\n", "     test/gatehouse/token_test.exs:58\n\n\n\n")
    expect(readToolCall(shellCall("mix test", far)).locations.map((location) => location.text)).toEqual([])
    const prose = exunit.replace("     test/gatehouse/token_test.exs:58", "     see test/gatehouse/token_test.exs:58 for the fixture")
    expect(readToolCall(shellCall("mix test", prose)).locations.map((location) => location.text)).toEqual([])
  })
})
