import { readFileSync } from "node:fs"
import { beforeAll, describe, expect, it } from "vitest"
import { importClaudeCode } from "../../../src/transcript/importers/claude-code.js"
import type { Transcript, Turn } from "../../../src/transcript/turn-model.js"
import { expectPluginError } from "../expect-plugin-error.js"
import { samplePath, tracePath } from "../trace-path.js"
import { countToolCalls, findInvariantViolations, summarizeTranscript } from "../transcript-summary.js"

const FILE = tracePath("claudecode-opus46-spotter-gqc.jsonl")

function assistant(id: string, block: Record<string, unknown>, extra: Record<string, unknown> = {}): string {
  const message = { id, model: "claude-opus-4-6", role: "assistant", content: [block] }
  return JSON.stringify({ type: "assistant", sessionId: "s1", uuid: `u-${id}`, message, ...extra })
}

function user(content: unknown, extra: Record<string, unknown> = {}): string {
  return JSON.stringify({ type: "user", sessionId: "s1", uuid: "u", message: { role: "user", content }, ...extra })
}

/** What Claude Code 2.1.39 sends the model for a message it attached mid-turn (spelled out, to pin the wording). */
function attached(content: string): string {
  return (
    "<system-reminder>\nThe user sent a new message while you were working:\n" +
    `${content}\n\nIMPORTANT: After completing your current task, you MUST address the user's message above. ` +
    "Do not ignore it.\n</system-reminder>"
  )
}

describe("importClaudeCode", () => {
  let transcript: Transcript
  let sourceLines: string[]
  const turnAt = (index: number): Turn | undefined => transcript.turns.find((turn) => turn.index === index)

  beforeAll(() => {
    const text = readFileSync(FILE, "utf8")
    sourceLines = text.split("\n")
    transcript = importClaudeCode(text, { file: FILE })
  })

  it("reads the session id and model", () => {
    expect(transcript.id).toBe("258c7280-ae70-4798-800f-63464d01a85d")
    expect(transcript.model).toEqual({ providerID: "anthropic", modelID: "claude-opus-4-6" })
  })

  it("pins the counts of the real session", () => {
    // SOURCES.md: 192 user records, 299 assistant records, 186 tool calls. The 299 assistant records are 152 model
    // responses (one turn each); the 192 user records are 186 tool-result records (tool turns) and 6 user text turns
    // (lines 4, 494, 495, 1256, 1846, 1857). progress, snapshot, queue-operation and system records are not turns.
    expect(summarizeTranscript(transcript)).toEqual({
      turns: 344,
      user: 6,
      assistant: 152,
      tool: 186,
      toolCalls: 186,
      toolResults: 186,
      errorResults: 7,
    })
    expect(countToolCalls(transcript)).toEqual({
      Bash: 79,
      Edit: 35,
      Glob: 8,
      Grep: 5,
      Read: 42,
      Task: 1,
      TaskOutput: 3,
      Write: 13,
    })
  })

  it("keeps the turn-model invariants", () => {
    expect(findInvariantViolations(transcript)).toEqual([])
  })

  it("numbers turns by JSONL line", () => {
    expect(turnAt(4)).toMatchObject({ role: "user", parts: [{ type: "text", text: "Implement spotter-gqc" }] })
    expect(sourceLines[4]).toContain('"content":"Implement spotter-gqc"')
    expect(turnAt(1857)).toMatchObject({ role: "user", parts: [{ type: "text", text: "did you push?" }] })
    expect(turnAt(4)?.time).toBe(Date.parse(JSON.parse(sourceLines[4] ?? "{}").timestamp))
  })

  it("merges the records of one model response into the turn of its first record", () => {
    // Lines 48-78 share message.id ...VorFAw: thinking, text, then 8 Read calls interleaved with their results.
    const response = turnAt(48)
    expect(response?.role).toBe("assistant")
    expect(response?.parts.map((part) => part.type)).toEqual([
      "reasoning",
      "text",
      ...Array.from({ length: 8 }, () => "tool-call"),
    ])
    expect(turnAt(49)).toBeUndefined()
    expect(turnAt(54)).toBeUndefined()
    expect(turnAt(53)).toMatchObject({ role: "tool", parts: [{ type: "tool-result", tool: "Read" }] })
    expect(turnAt(81)?.role).toBe("tool")
  })

  it("imports each message the user typed while the agent worked once, with the tool results it was sent with", () => {
    // Lines 496 and 602 enqueue them; 504 and 603 record that Claude Code attached them to its next model call, the
    // one after the results of lines 507 and 606. No user record of the file carries either text.
    expect(sourceLines[602]).toContain('"operation":"enqueue"')
    expect(turnAt(507)).toMatchObject({ role: "tool", mergedRecords: [496] })
    expect(turnAt(507)?.parts.map((part) => part.type)).toEqual(["tool-result", "text"])
    expect(turnAt(507)?.parts[1]).toEqual({ type: "text", text: attached("check again") })
    expect(turnAt(606)).toMatchObject({ role: "tool", mergedRecords: [602] })
    expect(turnAt(606)?.parts[1]).toEqual({ type: "text", text: attached("new beads for the epic were added. tackle them") })
    const attachedTexts = transcript.turns.flatMap((turn) =>
      turn.parts.filter((part) => part.type === "text" && part.text.includes("while you were working")).map(() => turn.index),
    )
    expect(attachedTexts).toEqual([507, 606])
  })

  it("takes a task notification Claude Code enqueued from the user record that delivers it, once", () => {
    const notification = JSON.parse(sourceLines[279] ?? "{}").content as string
    expect(notification).toMatch(/^<task-notification>\n<task-id>b0be39e/)
    const carriers = transcript.turns.filter((turn) => turn.parts.some((part) => part.type === "text" && part.text === notification))
    expect(carriers.map((turn) => [turn.index, turn.role])).toEqual([[495, "user"]])
  })

  it("turns the continuation summary after a compaction into a plain user turn", () => {
    expect(sourceLines[1255]).toContain('"subtype":"compact_boundary"')
    expect(turnAt(1255)).toBeUndefined()
    const summary = turnAt(1256)
    expect(summary?.role).toBe("user")
    expect(summary?.parts).toEqual([
      { type: "text", text: expect.stringMatching(/^This session is being continued from a previous conversation/) },
    ])
  })

  it("maps tool results with block content, errors and the tool name of their call", () => {
    expect(turnAt(1479)?.parts[0]).toMatchObject({
      type: "tool-result",
      callId: "toolu_01VmaERAwhb19LGUwu9GenaK",
      tool: "Task",
      output: expect.stringContaining("\nagentId: a881341"),
      isError: false,
    })
    expect(turnAt(493)?.parts[0]).toMatchObject({
      type: "tool-result",
      output: expect.stringContaining("The user doesn't want to proceed with this tool use"),
      isError: true,
    })
  })

  it("keeps meta records as synthetic text and skips sidechain and API-error records", () => {
    const text = [
      user("Caveat: generated by local commands", { isMeta: true }),
      assistant("m1", { type: "text", text: "subagent" }, { isSidechain: true }),
      assistant("m2", { type: "text", text: "API Error: 500" }, { isApiErrorMessage: true }),
      assistant("m3", { type: "tool_use", id: "c1", name: "Bash", input: { command: "ls" } }),
      user([{ type: "tool_result", tool_use_id: "c1", content: [{ type: "text", text: "a" }, { type: "image" }] }]),
      user([{ type: "tool_result", tool_use_id: "gone", content: "orphan", is_error: true }]),
    ].join("\n")
    const result = importClaudeCode(text, { file: "inline.jsonl" })
    expect(result.turns).toEqual([
      {
        index: 0,
        role: "user",
        time: null,
        parts: [{ type: "text", text: "Caveat: generated by local commands", synthetic: true }],
      },
      {
        index: 3,
        role: "assistant",
        time: null,
        parts: [{ type: "tool-call", callId: "c1", tool: "Bash", input: { command: "ls" } }],
      },
      {
        index: 4,
        role: "tool",
        time: null,
        parts: [{ type: "tool-result", callId: "c1", tool: "Bash", output: "a\n[image]", isError: false }],
      },
      {
        index: 5,
        role: "tool",
        time: null,
        parts: [{ type: "tool-result", callId: "gone", tool: "unknown", output: "orphan", isError: true }],
      },
    ])
  })

  it("follows the queue through a sample of real records: attached once, after the results it went with", () => {
    // test/transcript/samples/README.md maps each sample line to its source line.
    const sample = importClaudeCode(readFileSync(samplePath("claudecode-queued-messages.jsonl"), "utf8"), {
      file: "claudecode-queued-messages.jsonl",
    })
    expect(findInvariantViolations(sample)).toEqual([])
    const shape = sample.turns.map((turn) => [turn.index, turn.role, turn.parts.map((part) => part.type).join(","), turn.mergedRecords ?? []])
    expect(shape).toEqual([
      [1, "assistant", "text,tool-call", [2]],
      [3, "tool", "tool-result", []],
      [4, "user", "text", []],
      [5, "user", "text", []],
      [7, "assistant", "text,reasoning,tool-call", [8, 9]],
      [11, "tool", "tool-result,text", [6]],
      [12, "assistant", "tool-call", []],
      [14, "assistant", "tool-call", []],
      [17, "tool", "tool-result,text", [15]],
      [18, "assistant", "tool-call", []],
      [19, "tool", "tool-result", []],
      [20, "assistant", "tool-call", []],
      [21, "tool", "tool-result", []],
      [22, "assistant", "text,tool-call", [23]],
    ])
    expect(sample.turns.find((turn) => turn.index === 17)?.parts[1]).toEqual({
      type: "text",
      text: attached("new beads for the epic were added. tackle them"),
    })
    // The bd0afab notification (sample line 13) waits for the idle loop: the remove at line 16 is not about it.
    expect(JSON.stringify(sample.turns)).not.toContain("<task-id>bd0afab")
  })

  it("keeps text sent beside tool results as the user's own text, after the results", () => {
    const rejected =
      "The user doesn't want to proceed with this tool use. The tool use was rejected (eg. if it was a file edit, " +
      "the new_string was NOT written to the file). To tell you how to proceed, the user said:\nnot on main"
    const text = [
      assistant("m1", { type: "tool_use", id: "c1", name: "Bash", input: { command: "git push" } }),
      user([
        { type: "tool_result", tool_use_id: "c1", content: rejected, is_error: true },
        { type: "text", text: "push to the spotter-gqc branch instead" },
        { type: "image", source: { type: "base64", media_type: "image/png", data: "AAAA" } },
      ]),
      user([{ type: "tool_result", tool_use_id: "c1", content: "ok" }, { type: "text", text: "injected" }], { isMeta: true }),
    ].join("\n")
    const result = importClaudeCode(text, { file: "inline.jsonl" })
    expect(result.turns[1]).toEqual({
      index: 1,
      role: "tool",
      time: null,
      parts: [
        { type: "tool-result", callId: "c1", tool: "Bash", output: rejected, isError: true },
        { type: "text", text: "push to the spotter-gqc branch instead" },
        { type: "file", mime: "image/png", filename: "image", url: "data:image/png;omitted-chars=4," },
      ],
    })
    expect(result.turns[2]?.parts[1]).toEqual({ type: "text", text: "injected", synthetic: true })
  })

  it("makes a message attached right after a model response a user turn of its own at the remove", () => {
    const queue = (operation: string, content?: string): string =>
      JSON.stringify({ type: "queue-operation", operation, sessionId: "s1", ...(content === undefined ? {} : { content }) })
    const text = [
      user("summarize the diff"),
      queue("enqueue", "and list the files"),
      assistant("m1", { type: "text", text: "The diff renames two modules." }),
      queue("remove"),
      assistant("m2", { type: "text", text: "Files: a.ex, b.ex" }),
    ].join("\n")
    expect(importClaudeCode(text, { file: "inline.jsonl" }).turns.slice(2)).toEqual([
      { index: 3, role: "user", time: null, parts: [{ type: "text", text: attached("and list the files") }], mergedRecords: [1] },
      { index: 4, role: "assistant", time: null, parts: [{ type: "text", text: "Files: a.ex, b.ex" }] },
    ])
  })

  it("imports nothing for a message removed from the queue after the last model call, or run as a prompt", () => {
    const queue = (operation: string, content?: string): string =>
      JSON.stringify({ type: "queue-operation", operation, sessionId: "s1", ...(content === undefined ? {} : { content }) })
    const text = [
      user("go"),
      queue("enqueue", "also this"),
      queue("dequeue"),
      user("also this"),
      assistant("m1", { type: "text", text: "done" }),
      queue("enqueue", "never sent"),
      queue("remove"),
    ].join("\n")
    const texts = importClaudeCode(text, { file: "inline.jsonl" }).turns.flatMap((turn) =>
      turn.parts.flatMap((part) => (part.type === "text" ? [part.text] : [])),
    )
    expect(texts).toEqual(["go", "also this", "done"])
  })

  it.each([
    {
      name: "a bad JSON line",
      text: [user("hi"), "{oops"].join("\n"),
      fragments: ["bad.jsonl: record 1: not valid JSON"],
    },
    {
      name: "an assistant record without message.id",
      text: [user("hi"), JSON.stringify({ type: "assistant", message: { content: [] } })].join("\n"),
      fragments: ["bad.jsonl: record 1: message.id: expected string, received undefined"],
    },
    {
      name: "a tool_use block without a name",
      text: [user("hi"), user("again"), assistant("m1", { type: "tool_use", id: "c1", input: {} })].join("\n"),
      fragments: ["bad.jsonl: record 2: message.content[0].name: expected string, received undefined"],
    },
    {
      name: "a record without a type",
      text: JSON.stringify({ sessionId: "s1" }),
      fragments: ["bad.jsonl: record 0: type: expected string, received undefined"],
    },
  ])("reports $name with the file, record and problem", ({ text, fragments }) => {
    expectPluginError(() => importClaudeCode(text, { file: "bad.jsonl" }), "transcript_parse", fragments)
  })
})
