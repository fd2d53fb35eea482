import { describe, expect, it } from "vitest"
import {
  classifyAssistantSentence,
  hasProblem,
  hasReason,
  isCorrection,
  isDirective,
  isHarnessNotice,
  isQuestionOrConditional,
  isTrivialUserText,
  splitSentences,
} from "../../src/historian/extract-patterns.js"

describe("splitSentences", () => {
  it("splits at sentence ends and keeps each line a unit", () => {
    expect(splitSentences("First one. Second one!\nThird line? Yes")).toEqual([
      "First one.",
      "Second one!",
      "Third line?",
      "Yes",
    ])
  })

  it.each([
    ["an abbreviation", "Use a tool, e.g. ripgrep, for this.", ["Use a tool, e.g. ripgrep, for this."]],
    ["a file name", "Edit src/a.ts now. Then test.", ["Edit src/a.ts now.", "Then test."]],
    ["backticks", "Run `a. B` twice. Done.", ["Run `a. B` twice.", "Done."]],
    ["a version", "Bump to 0.8.0 today. Ship it.", ["Bump to 0.8.0 today.", "Ship it."]],
  ])("does not split inside %s", (_, text, expected) => {
    expect(splitSentences(text)).toEqual(expected)
  })

  it("keeps a bold list number with the sentence it numbers", () => {
    // A bold heading ends at `.**`, which is not a sentence end: it stays with its first sentence.
    expect(splitSentences("**1. Cache (V28).** Extremes go into Postgres. **2. Windows.** Heights follow the tide.")).toEqual([
      "**1. Cache (V28).** Extremes go into Postgres.",
      "**2. Windows.** Heights follow the tide.",
    ])
    expect(splitSentences("It took 2. Then it stopped.")).toEqual(["It took 2.", "Then it stopped."])
  })

  it("drops fenced code and list or heading markers", () => {
    const text = "## Summary\n- **Fixed** the cache\n1. Added tests\n```ts\nconst a = 1. Not prose\n```\nAfter."
    expect(splitSentences(text)).toEqual(["Summary", "**Fixed** the cache", "Added tests", "After."])
  })
})

describe("classifyAssistantSentence", () => {
  it.each([
    ["I'll use better-sqlite3 because bun:sqlite does not load in Node.", "decision"],
    ["Let's go with the table rewrite.", "decision"],
    ["The fix is to lower-case the input before replacing.", "decision"],
    ["I decided to keep the public signature.", "decision"],
    ["We should rebuild the cache on every start.", "decision"],
    ["Switching to the v2 client.", "decision"],
    ["The root cause is a stale compilation cache.", "decision"],
    ["The issue is that Ghostty and VS Code report different TERM values.", "decision"],
    ["I need to rewrite it with a SQLite-safe table rewrite pattern.", "decision"],
    ["Let's try to install `llvm-14-dev` instead of `llvm-dev`.", "rejected_alternative"],
    ["The sed command didn't work because of the multiline format.", "rejected_alternative"],
    ["That approach won't work here.", "rejected_alternative"],
    ["Redis `SET NX` with a TTL was the obvious alternative, but our Redis evicts keys.", "rejected_alternative"],
    ["I considered a worker pool, but the queue is already bounded.", "rejected_alternative"],
    ["Reverted the setImmediate workaround.", "rejected_alternative"],
    ["I rolled back the migration.", "rejected_alternative"],
    ["The migration uses `ALTER TABLE ... modify` which SQLite doesn't support.", "rejected_alternative"],
    ["We abandoned the lookup table.", "rejected_alternative"],
    ["TODO: add tests for the light theme", "open_work"],
    ["The next step is to run the full suite.", "open_work"],
    ["I'd call the HTTP API directly rather than take the SDK.", "rejected_alternative"],
    ["The fix was not yet tested.", "open_work"],
  ])("classifies %j as %s", (sentence, kind) => {
    expect(classifyAssistantSentence(sentence)).toBe(kind)
  })

  it.each([
    ["I'll in a question", "Should I use the dark theme, or shall I'll use the light one?"],
    ["a question about a choice", "Do you want me to switch to the light theme?"],
    ["a conditional", "If we move to Bun, I'll use bun:sqlite."],
    ["an intention to read", "I'll read the theme documentation first."],
    ["a plan to look", "Let me check the selector files."],
    ["a look for the issue", "Let me check if maybe the issue is in how the bgColor is handled:"],
    ["prose with a number", "The build finished in 2.5 seconds."],
    ["an identifier containing error", "Read `errorCount` from the state."],
    ["an undo_edit command name", "The `undo_edit` command exists in this tool."],
  ])("records nothing for %s", (_, sentence) => {
    expect(classifyAssistantSentence(sentence)).toBeNull()
  })
})

describe("hasReason and hasProblem", () => {
  it.each([
    ["because it is faster", true],
    ["since the cache is stale", true],
    ["so that tests stay isolated", true],
    ["due to a missing index", true],
    ["As the process is separate, it cannot see the sandbox", true],
    ["as well as the tests", false],
    ["such as the dark theme", false],
  ])("hasReason(%j) is %s", (sentence, expected) => {
    expect(hasReason(sentence)).toBe(expected)
  })

  it.each([
    ["The LiveView runs in a separate process that can't access the sandbox.", true],
    ["The module is missing.", true],
    ["Everything compiles.", false],
  ])("hasProblem(%j) is %s", (sentence, expected) => {
    expect(hasProblem(sentence)).toBe(expected)
  })
})

describe("isDirective", () => {
  it.each([
    "do not change the public API of src/slugify.js",
    "Never log to the console.",
    "invalid themes must NEVER explode",
    "You must keep the signature stable.",
    "Use rg instead of grep.",
    "Constraint: keep it under 200 lines.",
    "Make sure all these tests pass with your changes.",
    "so you don't need to install other packages.",
  ])("accepts %j", (sentence) => {
    expect(isDirective(sentence)).toBe(true)
  })

  it.each([
    "If you have suggestions on where to begin, it's always appreciated.",
    "This could help to avoid confusion.",
    "Can you keep it short?",
    "The tests pass now.",
  ])("rejects %j", (sentence) => {
    expect(isDirective(sentence)).toBe(false)
  })
})

describe("isCorrection", () => {
  it.each([
    "no, that's not it, both use the dark theme",
    "i undid your changes, try again",
    "yeah you can undo that",
    "that's wrong",
    "please don't do that",
    "you fucked that component up",
  ])("accepts %j", (sentence) => {
    expect(isCorrection(sentence)).toBe(true)
  })

  it.each(["no need to hurry", "No problem", "nothing changed", "I know the answer"])("rejects %j", (sentence) => {
    expect(isCorrection(sentence)).toBe(false)
  })
})

describe("isHarnessNotice and isTrivialUserText", () => {
  it.each([
    "<task-notification>\n<task-id>b0be39e</task-id>",
    "[Request interrupted by user for tool use]",
    "This session is being continued from a previous conversation that ran out of context.",
  ])("treats %j as a harness notice", (text) => {
    expect(isHarnessNotice(text)).toBe(true)
  })

  it("does not treat a person's text as a notice", () => {
    expect(isHarnessNotice("did you push?")).toBe(false)
  })

  it.each([
    ["/mode", true],
    ["continue", true],
    ["ok.", true],
    ["minor, this is a big change", false],
    ["f0c674", false],
  ])("isTrivialUserText(%j) is %s", (text, expected) => {
    expect(isTrivialUserText(text)).toBe(expected)
  })
})

describe("isQuestionOrConditional", () => {
  it.each([
    "Let me check if the issue is in the selector.",
    "Let me first understand what this is about.",
    "I'll quickly look at the failing test.",
    "Let's take a look at how the config is loaded.",
  ])("reads %j as a look-around that decides nothing", (sentence) => {
    expect(isQuestionOrConditional(sentence)).toBe(true)
  })

  it.each([
    "I'll first add the column, then backfill it, and only then switch the reader.",
    "Let me use the queue for retries instead of a timer.",
  ])("reads %j as a statement", (sentence) => {
    expect(isQuestionOrConditional(sentence)).toBe(false)
  })
})
