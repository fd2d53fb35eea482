import { readFileSync } from "node:fs"
import { beforeAll, describe, expect, it } from "vitest"
import { importSweAgent } from "../../../src/transcript/importers/swe-agent.js"
import type { Transcript, Turn } from "../../../src/transcript/turn-model.js"
import { expectPluginError } from "../expect-plugin-error.js"
import { tracePath } from "../trace-path.js"
import { countToolCalls, findInvariantViolations, summarizeTranscript } from "../transcript-summary.js"

const FILE = tracePath("sweagent-gpt4-pydicom-1458.traj")

describe("importSweAgent", () => {
  let transcript: Transcript
  const turnAt = (index: number): Turn | undefined => transcript.turns.find((turn) => turn.index === index)

  beforeAll(() => {
    transcript = importSweAgent(readFileSync(FILE, "utf8"), { file: FILE })
  })

  it("takes the id from the file name and the system prompt from history[0]", () => {
    expect(transcript.id).toBe("sweagent-gpt4-pydicom-1458")
    expect(transcript.model).toBeNull()
    expect(transcript.system).toMatch(/^SETTING: You are an autonomous programmer/)
    expect(turnAt(0)).toBeUndefined()
  })

  it("pins the counts of the real trajectory", () => {
    // SOURCES.md: 26 history messages, 12 tool calls. history[0] is the system prompt; the final `submit` has no
    // observation in `history`, so there are 11 results.
    expect(summarizeTranscript(transcript)).toEqual({
      turns: 25,
      user: 2,
      assistant: 12,
      tool: 11,
      toolCalls: 12,
      toolResults: 11,
      errorResults: 0,
    })
    expect(countToolCalls(transcript)).toEqual({
      create: 1,
      edit: 5,
      find_file: 1,
      open: 1,
      python: 2,
      rm: 1,
      submit: 1,
    })
    expect(findInvariantViolations(transcript)).toEqual([])
  })

  it("keeps the demonstration and the task as user turns", () => {
    expect(turnAt(1)?.parts[0]).toMatchObject({ text: expect.stringMatching(/^Here is a demonstration/) })
    expect(turnAt(2)?.parts[0]).toMatchObject({
      text: expect.stringContaining("Pixel Representation attribute should be optional"),
    })
  })

  it("maps an assistant message to its thought and one tool call answered by the next message", () => {
    expect(turnAt(11)?.parts).toEqual([
      { type: "text", text: expect.stringMatching(/^The file we are interested in is/) },
      {
        type: "tool-call",
        callId: "swe-agent-11",
        tool: "open",
        input: { command: "open pydicom/pixel_data_handlers/numpy_handler.py 293\n" },
      },
    ])
    expect(turnAt(12)?.parts).toEqual([
      {
        type: "tool-result",
        callId: "swe-agent-11",
        tool: "open",
        output: expect.stringMatching(/^\[File: \/pydicom__pydicom\/pydicom\/pixel_data_handlers\/numpy_handler.py/),
        isError: false,
      },
    ])
    expect(turnAt(25)?.parts[1]).toMatchObject({ type: "tool-call", tool: "submit" })
  })

  it("parses the last fenced block when a message has no action field", () => {
    const history = [
      { role: "system", content: "SYS" },
      { role: "user", content: "task" },
      { role: "assistant", content: "Let me look.\n\n```\nls -a\n```\n" },
      { role: "user", content: "a b c" },
      { role: "assistant", content: "No command this time." },
      { role: "user", content: "Your output was not formatted correctly." },
    ]
    const result = importSweAgent(JSON.stringify({ history, trajectory: [] }), { file: "/tmp/run/x__y-1.traj" })
    expect(result.id).toBe("x__y-1")
    expect(result.turns).toEqual([
      { index: 1, role: "user", time: null, parts: [{ type: "text", text: "task" }] },
      {
        index: 2,
        role: "assistant",
        time: null,
        parts: [
          { type: "text", text: "Let me look.\n\n\n" },
          { type: "tool-call", callId: "swe-agent-2", tool: "ls", input: { command: "ls -a\n" } },
        ],
      },
      {
        index: 3,
        role: "tool",
        time: null,
        parts: [{ type: "tool-result", callId: "swe-agent-2", tool: "ls", output: "a b c", isError: false }],
      },
      { index: 4, role: "assistant", time: null, parts: [{ type: "text", text: "No command this time." }] },
      {
        index: 5,
        role: "user",
        time: null,
        parts: [{ type: "text", text: "Your output was not formatted correctly." }],
      },
    ])
  })

  it.each([
    {
      name: "a file that is not JSON",
      text: "{ history: ",
      fragments: ["bad.traj: not valid JSON"],
    },
    {
      name: "a message without a role",
      text: JSON.stringify({ history: [{ role: "system", content: "s" }, { content: "x" }], trajectory: [] }),
      fragments: ["bad.traj: record 1: role: expected one of"],
    },
    {
      name: "content of the wrong type",
      text: JSON.stringify({ history: [{ role: "user", content: 42 }], trajectory: [] }),
      fragments: ["bad.traj: record 0: content:"],
    },
  ])("reports $name with the file, record and problem", ({ text, fragments }) => {
    expectPluginError(() => importSweAgent(text, { file: "bad.traj" }), "transcript_parse", fragments)
  })
})
