import { describe, expect, it } from "vitest"
import { recordText, recordTexts } from "../../src/lab/record-text.js"
import type { Transcript, Turn } from "../../src/transcript/turn-model.js"

const assistantTurn: Turn = {
  index: 4,
  role: "assistant",
  time: null,
  parts: [
    { type: "reasoning", text: "Check the config first." },
    { type: "text", text: "Reading it." },
    { type: "tool-call", callId: "c1", tool: "read", input: { path: "config/app.json", limit: 20 } },
  ],
}

const toolTurn: Turn = {
  index: 5,
  role: "tool",
  time: null,
  parts: [{ type: "tool-result", callId: "c1", tool: "read", output: '{"port": 1100}', isError: false }],
}

describe("recordText", () => {
  it("shows a record's parts as promptText would, tool inputs decoded", () => {
    expect(recordText(assistantTurn)).toBe("Check the config first.\nReading it.\nread\n20\nconfig/app.json")
    expect(recordText(toolTurn)).toBe('{"port": 1100}')
  })

  it("shows a file by its name", () => {
    const file = { type: "file", mime: "image/png", filename: "shot.png", url: "data:," } as const
    const turn: Turn = { index: 1, role: "user", time: null, parts: [file] }
    expect(recordText(turn)).toBe("shot.png")
  })
})

describe("recordTexts", () => {
  it("maps every record index to its text, in order", () => {
    const transcript: Transcript = {
      format: "pi",
      file: "x.jsonl",
      trajectory: null,
      id: "x",
      model: null,
      system: null,
      turns: [assistantTurn, toolTurn],
    }
    expect([...recordTexts(transcript).keys()]).toEqual([4, 5])
  })
})
