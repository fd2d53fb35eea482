import { describe, expect, it } from "vitest"
import { fallbackErrorLines, findErrorLines } from "../../src/historian/error-lines.js"
import { readToolCall } from "../../src/historian/read-tool-call.js"
import type { HostToolPart } from "../../src/transcript/host-message.js"
import { assistantMessage, completed, tool } from "../helpers/host-messages.js"

describe("findErrorLines", () => {
  it.each([
    [
      "TypeScript errors after npm noise",
      "> build\n> tsgo -p .\n\nsrc/theme/theme.ts(5,15): error TS2305: Module has no exported member 'EditorTheme'.\n" +
        "src/theme/theme.ts(5,28): error TS2305: Module has no exported member 'MarkdownTheme'.\nnpm error code 1",
      [
        "src/theme/theme.ts(5,15): error TS2305: Module has no exported member 'EditorTheme'.",
        "src/theme/theme.ts(5,28): error TS2305: Module has no exported member 'MarkdownTheme'.",
      ],
    ],
    [
      "a Python traceback (header and exception)",
      'Traceback (most recent call last):\n  File "r.py", line 17\nAttributeError: missing PixelRepresentation',
      ["Traceback (most recent call last):", "AttributeError: missing PixelRepresentation"],
    ],
    [
      "a git failure with its exit code",
      "Exit code 128\nfatal: The current branch spotter-gqc has no upstream branch.\n\n  git push --set-upstream",
      ["Exit code 128", "fatal: The current branch spotter-gqc has no upstream branch."],
    ],
    [
      "an apt failure",
      "Reading package lists... Done\nE: Unable to locate package libgtest-dev",
      ["E: Unable to locate package libgtest-dev"],
    ],
    [
      "a lint failure under an ERRORS header",
      "Your proposed edit has introduced new syntax error(s).\n\nERRORS:\n- E999 SyntaxError: unmatched ')'\n\n" +
        "281:    raise AttributeError(",
      ["- E999 SyntaxError: unmatched ')'"],
    ],
    [
      "an ERROR header followed by its message",
      "ERROR:\nNo replacement was performed. Multiple occurrences of old_str",
      ["ERROR: No replacement was performed. Multiple occurrences of old_str"],
    ],
    ["a bare non-zero exit", "Command exited with code 1", ["Command exited with code 1"]],
    [
      "a pytest failure",
      "tests/test_x.py .F\nFAILED tests/test_x.py::test_y - assert 1 == 2",
      ["FAILED tests/test_x.py::test_y - assert 1 == 2"],
    ],
    [
      "a shell error",
      "/bin/sh: 1: cd: can't cd to /w/build\nmake: *** [Makefile:192: build] Error 2",
      ["/bin/sh: 1: cd: can't cd to /w/build"],
    ],
    [
      "an Elixir exception",
      "** (RuntimeError) no :secret_key_base configuration found",
      ["** (RuntimeError) no :secret_key_base configuration found"],
    ],
  ])("finds %s", (_, output, lines) => {
    expect(findErrorLines(output)).toEqual({ failed: true, lines })
  })

  it.each([
    ["an identifier containing error", "const errorCount = 0\nlet error_handler = null"],
    ["a success note", "Script completed successfully, no errors."],
    ["a clean test summary", "Tests: 43 passed, 0 failed\nFinished in 0.4 seconds"],
    ["console.error in code", "console.error(message)"],
    ["a code listing", "281:        raise AttributeError(\n282:            'Unable to convert'"],
    ["a zero exit code", "exit code 0"],
    ["a log timestamp", "21:41:05.928 [info] execute ALTER TABLE"],
    ["a word that only looks like failure", "The failover test and the errorless path pass."],
  ])("passes %s", (_, output) => {
    expect(findErrorLines(output)).toEqual({ failed: false, lines: [] })
  })

  it("keeps a repeated error line once", () => {
    const output = "error: undefined function get/2\n  at x\nerror: undefined function get/2"
    expect(findErrorLines(output).lines).toEqual(["error: undefined function get/2"])
  })
})

describe("fallbackErrorLines", () => {
  it("prefers a line that mentions an error", () => {
    expect(fallbackErrorLines("Debugger attached.\nError in the js-debug bootloader\nmore")).toEqual([
      "Error in the js-debug bootloader",
    ])
  })

  it("otherwise takes the first non-empty line", () => {
    expect(fallbackErrorLines("\n<tool_use_error>File does not exist.</tool_use_error>")).toEqual([
      "<tool_use_error>File does not exist.</tool_use_error>",
    ])
  })
})

const ESC = "\u001b"

/** One finished tool call as OpenCode records it. */
function call(name: string, input: Record<string, unknown>, output: string): HostToolPart {
  const [part] = assistantMessage({ id: "m1", parts: [tool("t1", name, completed(input, output))] }).parts
  if (part?.type !== "tool") throw new Error("expected a tool part")
  return part
}

describe("findErrorLines: service error answers", () => {
  it.each([
    ["an HTTP/1.1 status line", "HTTP/1.1 429 Too Many Requests\nRetry-After: 30\n\nslow down", "HTTP/1.1 429 Too Many Requests"],
    ["an HTTP/2 status line (no reason phrase)", "HTTP/2 503 \r\ncontent-type: text/plain\r\n\r\nupstream connect error", "HTTP/2 503"],
    ["a JSON error object", '{"error":{"message":"Invalid API key","type":"invalid_request_error"}}', '{"error":{"message":"Invalid API key","type":"invalid_request_error"}}'],
    ["a bare status", "401 Unauthorized", "401 Unauthorized"],
    ["a JSON status field", '{"status": 404, "detail": "project relay-staging not found"}', '{"status": 404, "detail": "project relay-staging not found"}'],
    ["a rate limit", "Rate limit exceeded for installation 4242; retry in 38s", "Rate limit exceeded for installation 4242; retry in 38s"],
  ])("recognises %s as a failure", (_, output, line) => {
    const scan = findErrorLines(output)
    expect(scan.failed).toBe(true)
    expect(scan.lines[0]).toBe(line)
    expect(findErrorLines(output, { cause: true, answers: false }).failed).toBe(false)
  })

  it.each([
    ["a list item of a spec", "Auth rules:\n- invalid token must be rejected\n- expired token must be refreshed once"],
    ["a bullet naming a status", "* 429 Too Many Requests is answered with Retry-After"],
    ["a document heading", "# Invalid API key\n\nIf the dashboard shows this, rotate the key."],
    ["a line below the 3rd", "Authentication\n\nEvery request carries a bearer token.\nTokens last an hour.\nA missing token gets 401 Unauthorized."],
    ["a grep hit in source", 'src/auth.ts:41:    throw new Error("Invalid API key")\nsrc/auth.ts:57:    throw new Error("expired token")'],
  ])("does not take %s for an answer", (_, output) => {
    expect(findErrorLines(output)).toEqual({ failed: false, lines: [] })
  })
})

describe("findErrorLines: the cause below a single error line", () => {
  it("keeps the line below that says why", () => {
    expect(findErrorLines('Error: upload failed\n  reason: bucket "relay-assets" does not exist\n')).toEqual({
      failed: true,
      lines: ["Error: upload failed", 'reason: bucket "relay-assets" does not exist'],
    })
  })

  it("skips stack frames and separators to reach the cause", () => {
    const output = "Error: connect ECONNREFUSED 127.0.0.1:5432\n    at TCPConnectWrap.afterConnect (node:net:1555:16)\n-----\nis the database running?"
    expect(findErrorLines(output).lines).toEqual(["Error: connect ECONNREFUSED 127.0.0.1:5432", "is the database running?"])
  })

  it("keeps no cause with the rule switched off", () => {
    expect(findErrorLines("Error: upload failed\n  reason: no bucket", { cause: false, answers: true }).lines).toEqual(["Error: upload failed"])
  })

  it("reads a pty_read buffer through its line numbers and escape codes", () => {
    const output = [
      '<pty_output id="pty_7f3a2c1b" status="exited">',
      `00001| ${ESC}[36m> relay@0.4.0 migrate${ESC}[39m`,
      "00002| ",
      `00003| ${ESC}[31mError: migration 0007_retry_columns failed${ESC}[39m`,
      `00004| ${ESC}[2m    at runMigration (scripts/migrate.js:41:11)${ESC}[22m`,
      `00005| ${ESC}[33m  cause: column "next_attempt_at" already exists${ESC}[39m`,
      "",
      "(End of buffer - total 5 lines)",
      "</pty_output>",
    ].join("\n")
    expect(findErrorLines(output)).toEqual({
      failed: true,
      lines: ["Error: migration 0007_retry_columns failed", 'cause: column "next_attempt_at" already exists'],
    })
  })
})

describe("readToolCall: failures of finished calls", () => {
  it.each([
    ["a curl answer", "bash", { command: "curl -si https://api.example.dev/v1/orders", description: "Fetch orders" }, "HTTP/1.1 429 Too Many Requests\nRetry-After: 30\n"],
    ["an MCP answer", "linear_create_issue", { title: "Retry webhooks", teamId: "PLAT" }, '{"error":{"message":"Invalid API key"}}'],
    ["an MCP status", "context7_get-library-docs", { context7CompatibleLibraryID: "/acme/relay" }, "401 Unauthorized"],
    ["a pty buffer", "pty_read", { id: "pty_7f3a2c1b" }, '<pty_output id="pty_7f3a2c1b" status="exited">\n00001| fatal: not a git repository\n</pty_output>'],
  ])("reads %s that states an error as a failure", (_, name, input, output) => {
    const reading = readToolCall(call(name, input, output))
    expect(reading.status).toBe("error")
    expect(reading.errorLines.length).toBeGreaterThan(0)
  })

  it.each([
    ["a read of a spec", "read", { filePath: "/home/dev/relay/docs/auth.md" }, "<path>/home/dev/relay/docs/auth.md</path>\n<type>file</type>\n<content>\n1: # 401 Unauthorized\n2: Invalid API key answers must not be retried.\n</content>"],
    ["a fetched error page's docs", "webfetch", { url: "https://docs.example.dev/errors/429", format: "markdown" }, "429 Too Many Requests\n\nThe API answers 429 when you exceed 60 requests per minute."],
    ["a spec printed by a script", "bash", { command: "node scripts/print-auth-rules.js" }, "Auth rules:\n- invalid token must be rejected\n- expired token must be refreshed once\n"],
    ["a document from an MCP server", "notion_get_page", { pageId: "7f3a" }, "# Invalid API key\n\nRotate the key in the dashboard."],
    ["a grep hit", "grep", { pattern: "Invalid API key", path: "src" }, 'src/auth.ts:41:    throw new Error("Invalid API key")'],
    ["an rg hit", "bash", { command: "rg -n 'throw new Error' src" }, 'src/a.ts:41:    throw new Error("Invalid API key")'],
    ["a git grep hit", "bash", { command: "git grep -n 'Invalid API key'" }, 'src/a.ts:41:    throw new Error("Invalid API key")'],
  ])("does not read %s as a failure", (_, name, input, output) => {
    const reading = readToolCall(call(name, input, output))
    expect(reading).toMatchObject({ status: "ok", errorLines: [] })
  })

  it("keeps the cause below a single error line of a command", () => {
    const output = 'Deploying relay-web to production…\nError: upload failed\n  reason: bucket "relay-assets" does not exist\n'
    const reading = readToolCall(call("bash", { command: "npm run deploy", description: "Deploy" }, output))
    expect(reading.errorLines).toEqual(["Error: upload failed", 'reason: bucket "relay-assets" does not exist'])
  })
})
