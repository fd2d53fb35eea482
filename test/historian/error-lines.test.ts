import { describe, expect, it } from "vitest"
import { fallbackErrorLines, findErrorLines } from "../../src/historian/error-lines.js"

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
