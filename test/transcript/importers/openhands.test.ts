import { readFileSync } from "node:fs"
import { beforeAll, describe, expect, it } from "vitest"
import { importOpenhands } from "../../../src/transcript/importers/openhands.js"
import type { Transcript, Turn } from "../../../src/transcript/turn-model.js"
import { expectPluginError } from "../expect-plugin-error.js"
import { tracePath } from "../trace-path.js"
import { countToolCalls, findInvariantViolations, summarizeTranscript } from "../transcript-summary.js"

const FILE = tracePath("openhands-llama4-ponyc.jsonl")

function instance(history: unknown[]): string {
  return JSON.stringify({ instance_id: "x-1", history, metadata: { llm_config: { model: "openai/some-model" } } })
}

describe("importOpenhands", () => {
  let text: string
  let trajectories: Transcript[]
  let historyLines: unknown[][]

  beforeAll(() => {
    text = readFileSync(FILE, "utf8")
    trajectories = [0, 1, 2].map((trajectory) => importOpenhands(text, { file: FILE, trajectory }))
    historyLines = text
      .split("\n")
      .filter((line) => line !== "")
      .map((line) => JSON.parse(line).history)
  })

  const primary = (): Transcript => trajectories[2] as Transcript
  const turnAt = (index: number): Turn | undefined => primary().turns.find((turn) => turn.index === index)

  it("defaults to the first trajectory", () => {
    const first = importOpenhands(text, { file: FILE })
    expect(first.trajectory).toBe(0)
    expect(first.id).toBe("ponylang__ponyc-4595")
  })

  it.each([
    // SOURCES.md counts 23 / 33 / 49 tool actions (finish included, it is a function call); every tool action is one
    // tool call here. The turn counts leave out the system action and the recall action and observation; line 2 and
    // line 3 each have one cause-less error observation, which is a user turn.
    {
      trajectory: 0,
      id: "ponylang__ponyc-4595",
      events: 49,
      summary: { turns: 46, user: 1, assistant: 23, tool: 22, toolCalls: 23, toolResults: 22, errorResults: 0 },
      tools: { edit: 2, finish: 1, read: 6, run: 13, think: 1 },
    },
    {
      trajectory: 1,
      id: "ponylang__ponyc-4593",
      events: 70,
      summary: { turns: 67, user: 2, assistant: 33, tool: 32, toolCalls: 33, toolResults: 32, errorResults: 0 },
      tools: { edit: 11, finish: 1, read: 9, run: 12 },
    },
    {
      trajectory: 2,
      id: "ponylang__ponyc-4588",
      events: 103,
      summary: { turns: 100, user: 2, assistant: 49, tool: 49, toolCalls: 49, toolResults: 49, errorResults: 0 },
      tools: { edit: 16, read: 8, run: 24, think: 1 },
    },
  ])("pins the counts of trajectory #$trajectory", ({ trajectory, id, events, summary, tools }) => {
    const transcript = trajectories[trajectory] as Transcript
    expect(transcript.id).toBe(id)
    expect(transcript.trajectory).toBe(trajectory)
    expect(historyLines[trajectory]).toHaveLength(events)
    expect(summarizeTranscript(transcript)).toEqual(summary)
    expect(countToolCalls(transcript)).toEqual(tools)
    expect(findInvariantViolations(transcript)).toEqual([])
  })

  it("takes the system prompt and the model from the trajectory", () => {
    expect(primary().system).toMatch(/^You are OpenHands agent, a helpful AI assistant/)
    expect(primary().model).toEqual({ providerID: "openai", modelID: "openrouter-llama-4-maverick" })
    expect(turnAt(0)).toBeUndefined()
  })

  it("numbers turns by history index", () => {
    expect(turnAt(1)).toMatchObject({
      role: "user",
      parts: [{ type: "text", text: expect.stringContaining("Incorrect aliasing of iso when using match") }],
    })
    expect(turnAt(2)).toBeUndefined()
    expect(turnAt(3)).toBeUndefined()
  })

  it("maps a tool action and its observation", () => {
    expect(turnAt(4)).toEqual({
      index: 4,
      role: "assistant",
      time: Date.parse("2025-04-30T17:56:42.611674Z"),
      parts: [
        { type: "text", text: expect.stringMatching(/^The task involves exploring the given C code repository/) },
        {
          type: "tool-call",
          callId: "toolu_01",
          tool: "run",
          input: expect.objectContaining({ command: "cd /workspace/ponylang__ponyc__0.1 && ls -l" }),
        },
      ],
    })
    expect(turnAt(5)?.parts).toEqual([
      {
        type: "tool-result",
        callId: "toolu_01",
        tool: "run",
        output: expect.stringMatching(/^total 296/),
        isError: false,
      },
    ])
    expect(turnAt(20)?.parts[1]).toMatchObject({ type: "tool-call", callId: "toolu_09", tool: "think" })
    expect(turnAt(21)?.parts[0]).toMatchObject({ output: "Your thought has been logged." })
  })

  it("turns an error observation without a cause into a synthetic user turn", () => {
    expect(turnAt(54)).toMatchObject({
      role: "user",
      parts: [{ type: "text", text: expect.stringMatching(/^Parameter 'command' is expected/), synthetic: true }],
    })
  })

  it("maps agent messages, calls without metadata, and error results", () => {
    const result = importOpenhands(
      instance([
        { id: 0, source: "agent", action: "system", args: { content: "SYS" } },
        { id: 1, source: "user", action: "message", args: { content: "fix it" } },
        { id: 2, source: "agent", action: "run", args: { command: "make", thought: "" } },
        { id: 3, source: "agent", observation: "error", cause: 2, content: "boom" },
        { id: 4, source: "agent", action: "message", args: { content: "done" } },
        { id: 5, source: "environment", observation: "agent_state_changed", content: "" },
      ]),
      { file: "inline.jsonl" },
    )
    expect(result.system).toBe("SYS")
    expect(result.turns).toEqual([
      { index: 1, role: "user", time: null, parts: [{ type: "text", text: "fix it" }] },
      {
        index: 2,
        role: "assistant",
        time: null,
        parts: [
          { type: "tool-call", callId: "openhands-event-2", tool: "run", input: { command: "make", thought: "" } },
        ],
      },
      {
        index: 3,
        role: "tool",
        time: null,
        parts: [{ type: "tool-result", callId: "openhands-event-2", tool: "run", output: "boom", isError: true }],
      },
      { index: 4, role: "assistant", time: null, parts: [{ type: "text", text: "done" }] },
    ])
  })

  it("reports an out-of-range trajectory with the number of trajectories", () => {
    const error = expectPluginError(
      () => importOpenhands(text, { file: FILE, trajectory: 5 }),
      "trajectory_out_of_range",
      [`${FILE}#5`, "it holds 3 (#0 to #2)"],
    )
    expect(error.data).toMatchObject({ trajectories: 3 })
  })

  it.each([
    {
      name: "a bad JSON line",
      text: "{nope",
      fragments: ["bad.jsonl: record 0: not valid JSON"],
    },
    {
      name: "a line without history",
      text: JSON.stringify({ instance_id: "x" }),
      fragments: ["bad.jsonl: record 0: history: expected array, received undefined"],
    },
    {
      name: "an event without an id",
      text: instance([{ id: 0, source: "user", action: "message", args: { content: "x" } }, { source: "agent" }]),
      fragments: ["bad.jsonl#0: record 1: id: expected number, received undefined"],
    },
    {
      name: "an event that is neither action nor observation",
      text: instance([{ id: 0, source: "agent" }]),
      fragments: ['bad.jsonl#0: record 0: the record: expected an "action" or an "observation" field'],
    },
  ])("reports $name with the file, record and problem", ({ text: source, fragments }) => {
    expectPluginError(() => importOpenhands(source, { file: "bad.jsonl" }), "transcript_parse", fragments)
  })
})
