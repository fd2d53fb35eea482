import { readFileSync } from "node:fs"
import { describe, expect, it } from "vitest"
import { importOpencodeExport } from "../../../src/transcript/importers/opencode-export.js"
import { expectPluginError } from "../expect-plugin-error.js"
import { PRUNED, prunedSessionExport } from "../pruned-export.js"
import { samplePath } from "../trace-path.js"
import { findInvariantViolations, summarizeTranscript } from "../transcript-summary.js"

const FILE = samplePath("opencode-export.json")

const SESSION = { id: "ses_1", model: { id: "model-a", providerID: "provider-a" } }

function assistantInfo(id: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { id, role: "assistant", time: { created: 10 }, providerID: "p", modelID: "m", ...extra }
}

function toolPart(callID: string, state: Record<string, unknown>): Record<string, unknown> {
  return { type: "tool", callID, tool: "bash", state }
}

describe("importOpencodeExport", () => {
  it("reads the real export sample", () => {
    const transcript = importOpencodeExport(readFileSync(FILE, "utf8"), { file: FILE })
    expect(transcript).toMatchObject({
      format: "opencode-export",
      id: "ses_dd7308aacffeqrR1BmUXwFbUpm",
      trajectory: null,
      model: { providerID: "mock", modelID: "mock-model" },
      system: null,
    })
    expect(summarizeTranscript(transcript)).toEqual({
      turns: 2,
      user: 1,
      assistant: 1,
      tool: 0,
      toolCalls: 0,
      toolResults: 0,
      errorResults: 0,
    })
    expect(transcript.turns).toEqual([
      {
        index: 0,
        role: "user",
        time: 1795981014524,
        parts: [
          { type: "text", text: expect.stringMatching(/^Called the Read tool/), synthetic: true },
          { type: "text", text: expect.stringMatching(/^<path>\/tmp\/ocx\/project\/notes.txt/), synthetic: true },
          { type: "file", mime: "text/plain", filename: "notes.txt", url: "file:///tmp/ocx/project/notes.txt" },
          { type: "text", text: "please summarize" },
        ],
      },
      { index: 1, role: "assistant", time: 1795981016014, parts: [{ type: "text", text: "Mock title" }] },
    ])
  })

  it("maps tool parts by state, reasoning, compaction, and skips failed empty replies", () => {
    const messages = [
      { info: { id: "u1", role: "user", time: { created: 1 } }, parts: [{ type: "text", text: "go" }] },
      {
        info: assistantInfo("a1"),
        parts: [
          { type: "step-start" },
          { type: "reasoning", text: "thinking", time: { start: 1 } },
          toolPart("c1", { status: "completed", input: { command: "ls" }, output: "a\nb", title: "ls", metadata: {} }),
          toolPart("c2", { status: "error", input: { command: "x" }, error: "not found" }),
          toolPart("c3", { status: "running", input: { command: "sleep" } }),
          { type: "step-finish", reason: "tool-calls" },
        ],
      },
      {
        info: assistantInfo("a2", { error: { name: "MessageAbortedError", data: {} } }),
        parts: [{ type: "step-start" }],
      },
      { info: { id: "u2", role: "user", time: { created: 3 } }, parts: [{ type: "compaction", auto: true }] },
      {
        info: { id: "u3", role: "user", time: { created: 4 } },
        parts: [{ type: "text", text: "hidden", ignored: true }],
      },
    ]
    const transcript = importOpencodeExport(JSON.stringify({ info: SESSION, messages }), { file: "inline.json" })
    expect(transcript.model).toEqual({ providerID: "p", modelID: "m" })
    expect(findInvariantViolations(transcript)).toEqual([])
    expect(transcript.turns).toEqual([
      { index: 0, role: "user", time: 1, parts: [{ type: "text", text: "go" }] },
      {
        index: 1,
        role: "assistant",
        time: 10,
        parts: [
          { type: "reasoning", text: "thinking" },
          { type: "tool-call", callId: "c1", tool: "bash", input: { command: "ls" } },
          { type: "tool-result", callId: "c1", tool: "bash", output: "a\nb", isError: false },
          { type: "tool-call", callId: "c2", tool: "bash", input: { command: "x" } },
          { type: "tool-result", callId: "c2", tool: "bash", output: "not found", isError: true },
          { type: "tool-call", callId: "c3", tool: "bash", input: { command: "sleep" } },
        ],
      },
      { index: 3, role: "user", time: 3, parts: [{ type: "text", text: "What did we do so far?", synthetic: true }] },
    ])
  })

  it("keeps the time OpenCode pruned a tool output, and the output the record holds", () => {
    const transcript = importOpencodeExport(prunedSessionExport(), { file: "pruned.json" })
    const results = transcript.turns.flatMap((turn) => turn.parts.filter((part) => part.type === "tool-result"))
    expect(results.filter((part) => part.prunedAt !== undefined)).toEqual([
      {
        type: "tool-result",
        callId: "call_6",
        tool: "bash",
        output: expect.stringContaining(PRUNED.exact),
        isError: false,
        prunedAt: PRUNED.at,
      },
    ])
    expect(transcript.turns.find((turn) => turn.index === PRUNED.message)?.parts).toContainEqual(
      expect.objectContaining({ type: "tool-result", prunedAt: PRUNED.at }),
    )
  })

  it("falls back to the session model and shortens inline data urls", () => {
    const url = `data:image/png;base64,${"A".repeat(5000)}`
    const messages = [
      { info: { id: "u1", role: "user", time: { created: 1 } }, parts: [{ type: "file", mime: "image/png", url }] },
    ]
    const transcript = importOpencodeExport(JSON.stringify({ info: SESSION, messages }), { file: "inline.json" })
    expect(transcript.model).toEqual({ providerID: "provider-a", modelID: "model-a" })
    expect(transcript.turns[0]?.parts).toEqual([
      { type: "file", mime: "image/png", filename: "attachment", url: "data:image/png;omitted-chars=5022," },
    ])
  })

  it.each([
    {
      name: "a file that is not JSON",
      text: "{",
      fragments: ["bad.json: not valid JSON"],
    },
    {
      name: "a session without an id",
      text: JSON.stringify({ info: {}, messages: [] }),
      fragments: ["bad.json: info.id: expected string, received undefined"],
    },
    {
      name: "a message with an unknown role",
      text: JSON.stringify({ info: SESSION, messages: [{ info: { id: "x", role: "bot", time: {} }, parts: [] }] }),
      fragments: ["bad.json: record 0: info.role: expected one of"],
    },
    {
      name: "a tool part without callID",
      text: JSON.stringify({
        info: SESSION,
        messages: [
          { info: { id: "u", role: "user", time: { created: 1 } }, parts: [] },
          {
            info: assistantInfo("a"),
            parts: [{ type: "tool", tool: "bash", state: { status: "pending", input: {} } }],
          },
        ],
      }),
      fragments: ["bad.json: record 1: parts[0].callID: expected string, received undefined"],
    },
  ])("reports $name with the file, record and problem", ({ text, fragments }) => {
    expectPluginError(() => importOpencodeExport(text, { file: "bad.json" }), "transcript_parse", fragments)
  })
})
