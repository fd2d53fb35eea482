import { readFileSync } from "node:fs"
import { beforeAll, describe, expect, it } from "vitest"
import { importPi } from "../../../src/transcript/importers/pi.js"
import type { Transcript, Turn } from "../../../src/transcript/turn-model.js"
import { expectPluginError } from "../expect-plugin-error.js"
import { tracePath } from "../trace-path.js"
import { countToolCalls, findInvariantViolations, summarizeTranscript } from "../transcript-summary.js"

const FILE = tracePath("pi-sonnet45-large-session.jsonl")

const HEADER = JSON.stringify({ type: "session", id: "s1", provider: "anthropic", modelId: "claude-sonnet-4-5" })

function line(message: Record<string, unknown>): string {
  return JSON.stringify({ type: "message", timestamp: "2025-11-20T23:33:01.550Z", message })
}

describe("importPi", () => {
  let transcript: Transcript
  let sourceLines: string[]
  const turnAt = (index: number): Turn | undefined => transcript.turns.find((turn) => turn.index === index)

  beforeAll(() => {
    const text = readFileSync(FILE, "utf8")
    sourceLines = text.split("\n")
    transcript = importPi(text, { file: FILE })
  })

  it("reads the session header", () => {
    expect(transcript.id).toBe("d703a1a9-1b7b-4fb1-b512-c9738b1fe617")
    expect(transcript.model).toEqual({ providerID: "anthropic", modelID: "claude-sonnet-4-5" })
    expect(transcript.trajectory).toBeNull()
    expect(transcript.system).toBeNull()
  })

  it("pins the counts of the real session", () => {
    // SOURCES.md: 88 user messages, 453 assistant messages, 373 tool results, 391 tool calls. 14 assistant messages
    // (lines 2, 273, 275, 297, 353, 439, 475, 497, 679, 757, 763, 789, 821, 876) were aborted with empty content and
    // are not turns, so there are 439 assistant turns. 18 tool calls of aborted batches never got a result.
    expect(summarizeTranscript(transcript)).toEqual({
      turns: 900,
      user: 88,
      assistant: 439,
      tool: 373,
      toolCalls: 391,
      toolResults: 373,
      errorResults: 19,
    })
    expect(countToolCalls(transcript)).toEqual({ bash: 192, edit: 146, read: 50, write: 3 })
  })

  it("keeps the turn-model invariants", () => {
    expect(findInvariantViolations(transcript)).toEqual([])
  })

  it("numbers turns by JSONL line", () => {
    expect(turnAt(1)).toMatchObject({ role: "user", parts: [{ type: "text", text: "/mode" }] })
    expect(sourceLines[1]).toContain('"/mode"')
    expect(turnAt(4)?.parts[0]).toMatchObject({
      type: "text",
      text: expect.stringContaining("read packages/coding-agent/docs/theme.md in full"),
    })
    expect(sourceLines[4]).toContain("read packages/coding-agent/docs/theme.md in full")
  })

  it("skips aborted assistant messages and settings records", () => {
    expect(turnAt(0)).toBeUndefined()
    expect(turnAt(2)).toBeUndefined()
    expect(turnAt(3)).toBeUndefined()
    expect(sourceLines[3]).toContain('"model_change"')
  })

  it("reads Pi's own messages (a `!` bash run, an extension's message, summaries) as user turns of the text Pi sends", () => {
    const text = [
      HEADER,
      line({ role: "user", content: "hi" }),
      line({ role: "bashExecution", command: "git status", output: "clean", exitCode: 0, cancelled: false, truncated: false, timestamp: 2 }),
      line({ role: "custom", customType: "other-extension", content: "note", display: true, timestamp: 3 }),
      line({ role: "branchSummary", summary: "left a branch", fromId: "abc", timestamp: 4 }),
      line({ role: "compactionSummary", summary: "earlier work", tokensBefore: 9000, timestamp: 5 }),
      line({ role: "assistant", content: [{ type: "text", text: "hello" }], provider: "mock", model: "m", usage: { input: 10, output: 2, cacheRead: 3, cacheWrite: 0, totalTokens: 15 } }),
      line({ role: "bashExecution", command: "cat secrets", output: "x", exitCode: 0, cancelled: false, truncated: false, excludeFromContext: true, timestamp: 7 }),
      // Session version 2's name for an extension's message (Pi renames it on load).
      line({ role: "hookMessage", customType: "old-hook", content: [{ type: "text", text: "from a hook" }], display: true, timestamp: 8 }),
    ].join("\n")
    const turns = importPi(text, { file: "mixed.jsonl" }).turns
    expect(turns.map((turn) => [turn.index, turn.role, turn.parts.map((part) => (part.type === "text" ? part.text : part.type))])).toEqual([
      [1, "user", ["hi"]],
      [2, "user", ["Ran `git status`\n```\nclean\n```"]],
      [3, "user", ["note"]],
      [4, "user", ["The following is a summary of a branch that this conversation came back from:\n\n<summary>\nleft a branch</summary>"]],
      [5, "user", ["The conversation history before this point was compacted into the following summary:\n\n<summary>\nearlier work\n</summary>"]],
      [6, "assistant", ["hello"]],
      [8, "user", ["from a hook"]],
    ])
    expect(turns.slice(1, 5).every((turn) => turn.parts.every((part) => part.type === "text" && part.synthetic === true))).toBe(true)
    // The usage report is read, for a replay that calibrates against it.
    expect(turns[5]?.usage).toEqual({ input: 10, output: 2, cacheRead: 3, cacheWrite: 0 })
  })

  it("maps assistant blocks to text, reasoning and tool calls", () => {
    expect(turnAt(5)?.parts.slice(0, 2)).toEqual([
      { type: "text", text: expect.stringContaining("I'll read the theme documentation") },
      {
        type: "tool-call",
        callId: "toolu_017qEkVzzPb7b7o4FkgJLF23",
        tool: "read",
        input: { path: "packages/coding-agent/docs/theme.md" },
      },
    ])
    expect(turnAt(491)).toMatchObject({
      role: "assistant",
      parts: [
        { type: "reasoning", text: expect.stringMatching(/^The user wants me to use the thinking feature/) },
        { type: "text", text: "Hello! 👋" },
      ],
    })
    // The message's own timestamp (when it was created) wins over the record's (when it was written).
    expect(turnAt(5)?.time).toBe(1763681630793)
  })

  it("maps a failed tool result", () => {
    expect(turnAt(39)).toMatchObject({
      role: "tool",
      parts: [
        {
          type: "tool-result",
          callId: "toolu_01XrQPnkjYXzpzFGYHBzU2vm",
          tool: "bash",
          output: "Command exited with code 1",
          isError: true,
        },
      ],
    })
  })

  it("represents images as file parts with a short placeholder url", () => {
    const image = { type: "image", data: "A".repeat(50_000), mimeType: "image/png" }
    const text = [
      HEADER,
      line({ role: "user", content: [{ type: "text", text: "look" }, image], timestamp: 1 }),
      line({
        role: "assistant",
        content: [{ type: "toolCall", id: "c1", name: "read", arguments: { path: "a.png" } }],
      }),
      line({ role: "toolResult", toolCallId: "c1", toolName: "read", content: [image], isError: false }),
    ].join("\n")
    const result = importPi(text, { file: "inline.jsonl" })
    const [user, , tool] = result.turns
    expect(user?.parts[1]).toEqual({
      type: "file",
      mime: "image/png",
      filename: "image",
      url: "data:image/png;omitted-chars=50000,",
    })
    expect(tool?.parts[0]).toMatchObject({ type: "tool-result", output: "[image]" })
  })

  it.each([
    {
      name: "a bad JSON line",
      text: [HEADER, "{not json"].join("\n"),
      fragments: ["bad.jsonl: record 1: not valid JSON"],
    },
    {
      name: "a tool result without toolCallId",
      text: [
        HEADER,
        line({ role: "user", content: "hi" }),
        line({ role: "toolResult", toolName: "bash", content: [], isError: false }),
      ].join("\n"),
      fragments: ["bad.jsonl: record 2: message.toolCallId: expected string, received undefined"],
    },
    {
      name: "a missing session header",
      text: line({ role: "user", content: "hi" }),
      fragments: ["bad.jsonl: record 0: type: expected the session header"],
    },
    {
      name: "an unknown message role",
      text: [HEADER, line({ role: "robot", content: "hi" })].join("\n"),
      fragments: ["bad.jsonl: record 1: message.role:"],
    },
  ])("reports $name with the file, record and problem", ({ text, fragments }) => {
    const error = expectPluginError(() => importPi(text, { file: "bad.jsonl" }), "transcript_parse", fragments)
    expect(error.data).toMatchObject({ file: "bad.jsonl" })
  })

  it("rejects a trajectory selector", () => {
    expectPluginError(() => importPi(HEADER, { file: "one.jsonl", trajectory: 1 }), "invalid_argument", [
      "one.jsonl#1",
      "single session",
    ])
  })
})
