import { readFileSync } from "node:fs"
import { describe, expect, it } from "vitest"
import { detectFormat } from "../../src/transcript/detect-format.js"
import { expectPluginError } from "./expect-plugin-error.js"
import { samplePath, tracePath } from "./trace-path.js"

describe("detectFormat", () => {
  it.each([
    { path: samplePath("opencode-export.json"), format: "opencode-export" },
    { path: tracePath("pi-sonnet45-large-session.jsonl"), format: "pi" },
    { path: tracePath("claudecode-opus46-spotter-gqc.jsonl"), format: "claude-code" },
    { path: tracePath("openhands-llama4-ponyc.jsonl"), format: "openhands" },
    { path: tracePath("sweagent-gpt4-pydicom-1458.traj"), format: "swe-agent" },
  ])("recognizes $format from content", ({ path, format }) => {
    expect(detectFormat(readFileSync(path, "utf8"), path)).toBe(format)
  })

  it("ignores the file extension", () => {
    const text = readFileSync(tracePath("sweagent-gpt4-pydicom-1458.traj"), "utf8")
    expect(detectFormat(text, "renamed.jsonl")).toBe("swe-agent")
  })

  it.each([
    {
      name: "a swe-agent trajectory identified by its model stats",
      text: '{"history":[],"info":{"model_stats":{}}}',
      format: "swe-agent",
    },
    { name: "a one-line openhands file", text: '{"instance_id":"a","history":[]}\n', format: "openhands" },
    {
      name: "a claude code file opening with a snapshot",
      text: ['{"type":"file-history-snapshot","messageId":"m"}', '{"type":"user","sessionId":"s","uuid":"u"}'].join(
        "\n",
      ),
      format: "claude-code",
    },
  ])("recognizes $name", ({ text, format }) => {
    expect(detectFormat(text, "x")).toBe(format)
  })

  it.each([
    { name: "plain text", text: "hello world" },
    { name: "an empty file", text: "" },
    { name: "a JSON array", text: "[1, 2]" },
    { name: "an unrelated JSON object", text: '{"foo": 1}' },
    { name: "JSONL with unknown record types", text: '{"type":"event","sessionId":"s"}\n{"type":"user"}' },
  ])("rejects $name and says what it looked for", ({ text }) => {
    expectPluginError(() => detectFormat(text, "mystery.txt"), "transcript_format_unknown", [
      "mystery.txt: unknown transcript format",
      '"info" and "messages"',
      '{"type":"session"}',
      '"instance_id" and "history"',
    ])
  })
})
