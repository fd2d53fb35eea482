import { describe, expect, it } from "vitest"
import fc from "fast-check"
import { copyWorkingFold, deriveWorkingSet, emptyWorkingFold, foldWorkingFacts, workingFacts, workingSetOf } from "../../src/historian/working-set.js"
import type { HostMessage } from "../../src/transcript/host-message.js"
import {
  assistantMessage,
  completed,
  failed,
  running,
  text,
  tool,
  userMessage,
  type PartSpec,
} from "../helpers/host-messages.js"

const todos = (...items: [string, string][]) => ({ todos: items.map(([content, status]) => ({ content, status })) })

/** An assistant message with one tool part. */
const step = (id: string, part: PartSpec): HostMessage => assistantMessage({ id, parts: [part] })

describe("deriveWorkingSet", () => {
  it("is empty for a session with nothing to orient by", () => {
    expect(deriveWorkingSet([])).toEqual({ objective: null, filesModified: [], earlierFilesModified: 0, openTodos: [], lastFailure: null })
  })

  it("takes the objective from the newest request in the user's own words", () => {
    const messages = [
      userMessage({ id: "u1", parts: [text("u1t", "first, migrate the parser")] }),
      assistantMessage({ id: "a1", parts: [text("a1t", "Working on it.")] }),
      userMessage({
        id: "u2",
        parts: [
          text("u2t", "  now port the lexer to src/lexer.ts  "),
          text("u2s", "Called the Read tool with the following input", { synthetic: true }),
          text("u2i", "ignored note", { ignored: true }),
          text("u2w", "   "),
        ],
      }),
    ]
    expect(deriveWorkingSet(messages).objective).toBe("now port the lexer to src/lexer.ts")
  })

  it("cuts a long objective to 400 characters", () => {
    const messages = [userMessage({ id: "u1", parts: [text("u1t", "x".repeat(1_000))] })]
    expect(deriveWorkingSet(messages).objective).toBe("x".repeat(400))
  })

  it("ignores assistant text as an objective", () => {
    const messages = [assistantMessage({ id: "a1", parts: [text("a1t", "I will refactor everything.")] })]
    expect(deriveWorkingSet(messages).objective).toBeNull()
  })

  it("lists the files modified once each, in the order they were first touched", () => {
    const messages = [
      assistantMessage({
        id: "a1",
        parts: [
          tool("t1", "edit", completed({ filePath: "src/b.ts", oldString: "a", newString: "b" }, "ok")),
          tool("t2", "read", completed({ filePath: "src/read-only.ts" }, "content")),
          tool("t3", "write", completed({ file_path: "src/a.ts", content: "x" }, "ok")),
          tool("t4", "multiedit", completed({ path: "src/c.ts" }, "ok")),
        ],
      }),
      assistantMessage({
        id: "a2",
        parts: [
          tool("t5", "edit", completed({ filePath: "src/b.ts", oldString: "b", newString: "c" }, "ok")),
          tool("t6", "apply_patch", completed({ patchText: "*** Begin Patch\n*** Update File: src/d.ts\n@@\n-a\n+b\n*** Add File: src/b.ts\n+x\n*** End Patch" }, "ok")),
          tool("t7", "patch", failed({ patchText: "--- a/src/e.ts\n+++ b/src/e.ts\n@@ -1 +1 @@\n-a\n+b" }, "patch did not apply")),
          tool("t8", "edit", completed({ content: "no path" }, "ok")),
        ],
      }),
    ]
    const expected = ["src/b.ts", "src/a.ts", "src/c.ts", "src/d.ts", "src/e.ts"]
    expect(deriveWorkingSet(messages).filesModified).toEqual(expected)
  })

  it("lists at most 20 files, the most recently modified, in first-touch order, and counts the others", () => {
    const edit = (index: number, file: string) => tool(`e${index}`, "edit", completed({ filePath: file, oldString: "a", newString: "b" }, "ok"))
    const files = Array.from({ length: 500 }, (_, index) => `src/f${index}.ts`)
    // 500 files, then f3 once more: the newest 20 are f481..f499 and f3.
    const messages = [assistantMessage({ id: "a1", parts: [...files.map((file, index) => edit(index, file)), edit(999, "src/f3.ts")] })]
    const workingSet = deriveWorkingSet(messages)
    expect(workingSet.filesModified).toEqual(["src/f3.ts", ...files.slice(481)])
    expect(workingSet.earlierFilesModified).toBe(480)
  })

  it("takes the open todos from the newest todowrite only", () => {
    const messages = [
      assistantMessage({
        id: "a1",
        parts: [tool("t1", "todowrite", completed(todos(["old item", "pending"], ["another", "in_progress"]), "ok"))],
      }),
      assistantMessage({
        id: "a2",
        parts: [
          tool(
            "t2",
            "todowrite",
            completed(
              todos(
                ["port the lexer", "in_progress"],
                ["write tests", "pending"],
                ["set up CI", "completed"],
                ["drop IE", "cancelled"],
              ),
              "ok",
            ),
          ),
        ],
      }),
    ]
    expect(deriveWorkingSet(messages).openTodos).toEqual(["port the lexer", "write tests"])
  })

  it("has no open todos once the newest todowrite completes them all", () => {
    const messages = [
      step("a1", tool("t1", "todowrite", completed(todos(["a", "pending"]), "ok"))),
      step("a2", tool("t2", "todowrite", completed(todos(["a", "completed"]), "ok"))),
    ]
    expect(deriveWorkingSet(messages).openTodos).toEqual([])
  })

  it("skips todo entries that are not objects or have no content", () => {
    const input = { todos: [null, "text", { status: "pending" }, { content: "real", status: "pending" }] }
    const messages = [step("a1", tool("t1", "todowrite", completed(input, "ok")))]
    expect(deriveWorkingSet(messages).openTodos).toEqual(["real"])
  })

  it("reports the newest failing command with its first error line", () => {
    const messages = [
      assistantMessage({
        id: "a1",
        parts: [
          tool("t1", "bash", completed({ command: "npm test" }, "ok\nError: expected 2 to be 3\n  at x.test.ts:4")),
          tool("t2", "bash", failed({ command: "npm run lint\n--fix" }, "\n  src/a.ts:3 error: Unexpected var  \n    (no-var: use let or const)")),
        ],
      }),
    ]
    expect(deriveWorkingSet(messages).lastFailure).toEqual({
      command: "bash npm run lint",
      error: "src/a.ts:3 error: Unexpected var | (no-var: use let or const)",
    })
  })

  it("never takes a search hit that quotes an error for a failure", () => {
    const hit = "src/api.ts:41:    throw new Error(`unknown route ${name}`)"
    const messages = [step("a1", tool("t1", "bash", completed({ command: "grep -rn 'throw new Error(' src" }, hit)))]
    expect(deriveWorkingSet(messages).lastFailure).toBeNull()
  })

  it("takes no failure from an output OpenCode pruned", () => {
    const state = completed({ command: "npm test" }, "ok\nError: expected 2 to be 3")
    if (state.status !== "completed") throw new Error("expected a completed state")
    const pruned = { ...state, time: { ...state.time, compacted: 30 } }
    expect(deriveWorkingSet([step("a1", tool("t1", "bash", pruned))]).lastFailure).toBeNull()
  })

  it("clears the last failure when the same command later succeeds", () => {
    const messages = [
      step("a1", tool("t1", "bash", completed({ command: "npm test" }, "FAILED: 2 tests"))),
      step("a2", tool("t2", "bash", completed({ command: "npm test" }, "all 40 tests passed"))),
    ]
    expect(deriveWorkingSet(messages).lastFailure).toBeNull()
  })

  it("clears a tool error when the same call later succeeds", () => {
    const messages = [
      step("a1", tool("t1", "read", failed({ filePath: "src/x.ts" }, "ENOENT: no such file"))),
      step("a2", tool("t2", "read", completed({ filePath: "src/x.ts" }, "1: export {}"))),
    ]
    expect(deriveWorkingSet(messages).lastFailure).toBeNull()
  })

  it("tells calls apart by any path key of the host tool table (Claude Code's file_path)", () => {
    const messages = [
      step("a1", tool("t1", "Read", failed({ file_path: "src/x.ts" }, "ENOENT: no such file"))),
      step("a2", tool("t2", "Read", completed({ file_path: "src/y.ts" }, "1: export {}"))),
    ]
    expect(deriveWorkingSet(messages).lastFailure).toMatchObject({ command: "Read src/x.ts" })
  })

  it("keeps the last failure when a different command succeeds, or the same one is still running", () => {
    const messages = [
      step("a1", tool("t1", "bash", completed({ command: "npm test" }, "FAILED: 2 tests"))),
      assistantMessage({
        id: "a2",
        parts: [
          tool("t2", "bash", completed({ command: "git status" }, "clean")),
          tool("t3", "bash", running({ command: "npm test" })),
        ],
      }),
    ]
    expect(deriveWorkingSet(messages).lastFailure).toEqual({ command: "bash npm test", error: "FAILED: 2 tests" })
  })

  it("keeps the newest of two failures, even after the older command succeeds", () => {
    const messages = [
      step("a1", tool("t1", "bash", completed({ command: "npm test" }, "Error: boom"))),
      step("a2", tool("t2", "bash", completed({ command: "tsc" }, "error TS2322: bad type"))),
      step("a3", tool("t3", "bash", completed({ command: "npm test" }, "passed"))),
    ]
    expect(deriveWorkingSet(messages).lastFailure).toEqual({ command: "bash tsc", error: "error TS2322: bad type" })
  })

  it("does not take error words in a non-shell tool's output as a failure", () => {
    const messages = [
      step("a1", tool("t1", "read", completed({ filePath: "src/errors.ts" }, "export class Error {}"))),
    ]
    expect(deriveWorkingSet(messages).lastFailure).toBeNull()
  })
})

describe("the working set's fold, taken up where a pass left it", () => {
  // A session's kinds of step: the user's asks, writes (some of the same files), todo lists, failing and passing commands.
  const steps: HostMessage[] = [
    userMessage({ id: "u1", parts: [text("u1-t", "port the lexer to src/lexer.ts")] }),
    step("s1", tool("s1-t", "edit", completed({ filePath: "src/lexer.ts", oldString: "a", newString: "b" }, "ok"))),
    step("s2", tool("s2-t", "bash", failed({ command: "npm test" }, "Error: expected 3 tokens, got 2"))),
    step("s3", tool("s3-t", "todowrite", completed(todos(["fix the tokenizer", "in_progress"], ["update docs", "pending"]), "ok"))),
    step("s4", tool("s4-t", "write", completed({ filePath: "src/token.ts", content: "x" }, "ok"))),
    step("s5", tool("s5-t", "bash", completed({ command: "npm test" }, "12 passed"))),
    userMessage({ id: "u2", parts: [text("u2-t", "now the parser, keep the AST shape")] }),
    step("s6", tool("s6-t", "edit", completed({ filePath: "src/lexer.ts", oldString: "b", newString: "c" }, "ok"))),
    step("s7", tool("s7-t", "bash", running({ command: "npm run build" }))),
  ]

  it("folded in two goes, from a copy, gives the working set of one go; the copy leaves the original alone", () => {
    fc.assert(
      fc.property(fc.array(fc.nat(steps.length - 1), { maxLength: 40 }), fc.nat(), (picks, at) => {
        const messages = picks.map((pick) => steps[pick] as HostMessage)
        const cut = at % (messages.length + 1)
        const first = emptyWorkingFold()
        for (const message of messages.slice(0, cut)) foldWorkingFacts(first, workingFacts(message))
        const before = workingSetOf(first)
        const resumed = copyWorkingFold(first)
        for (const message of messages.slice(cut)) foldWorkingFacts(resumed, workingFacts(message))
        expect(workingSetOf(resumed)).toEqual(deriveWorkingSet(messages))
        expect(workingSetOf(first)).toEqual(before)
        expect(before).toEqual(deriveWorkingSet(messages.slice(0, cut)))
      }),
      { numRuns: 300 },
    )
  })
})
