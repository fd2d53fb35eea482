import { describe, expect, it } from "vitest"
import { renderEpisodeSource, SOURCE_OUTPUT_CHARS } from "../../src/historian/episode-source.js"
import type { HostMessage } from "../../src/transcript/host-message.js"
import {
  assistantMessage,
  completed,
  failed,
  inlinedFile,
  reasoning,
  running,
  text,
  tool,
  userMessage,
} from "../helpers/host-messages.js"
import { tagMessages } from "./trace-episodes.js"

function episode(): HostMessage[] {
  return [
    userMessage({
      id: "u1",
      parts: [
        text("u1t", "Fix the slugify bug.\nDo not change the public API."),
        text("u1s", "Called the Read tool with the following input", { synthetic: true }),
        text("u1i", "hidden", { ignored: true }),
        text("u1w", "   "),
      ],
    }),
    assistantMessage({
      id: "a1",
      parts: [
        reasoning("a1r", "thinking about it"),
        text("a1t", "Let me run the tests."),
        tool(
          "a1x",
          "bash",
          completed({ command: "npm test", timeout: 5 }, "1 failing\nAssertionError: expected 'a-b'"),
        ),
        tool("a1y", "read", failed({ filePath: "src/missing.ts" }, "ENOENT: no such file")),
        tool("a1z", "bash", running({ command: "npm run build" })),
      ],
    }),
  ]
}

describe("renderEpisodeSource", () => {
  it("renders each part with its tag, role and tool status (golden)", () => {
    const messages = episode()
    expect(renderEpisodeSource(messages, tagMessages(messages))).toMatchInlineSnapshot(`
      "§1§ [user] Fix the slugify bug.
      Do not change the public API.
      [user, inserted] Called the Read tool with the following input
      §2§ [assistant] Let me run the tests.
      §3§ [tool call] bash {"command":"npm test","timeout":5}
      [tool completed] 1 failing
      AssertionError: expected 'a-b'
      §4§ [tool call] read {"filePath":"src/missing.ts"}
      [tool error] ENOENT: no such file
      §5§ [tool call] bash {"command":"npm run build"}
      [tool running] [Tool execution was interrupted]"
    `)
  })

  it("leaves out reasoning, ignored and empty text and parts without text", () => {
    const messages = [
      assistantMessage({
        id: "a1",
        parts: [reasoning("r", "secret plan"), text("i", "ignored", { ignored: true }), text("w", " \n ")],
      }),
    ]
    expect(renderEpisodeSource(messages, () => null)).toBe("")
  })

  it("shows a file's inlined content as inserted user text", () => {
    const parts = [text("u1t", "look at this"), inlinedFile("f", "notes.txt", ["line one"])]
    const messages = [userMessage({ id: "u1", parts })]
    const lines = renderEpisodeSource(messages, tagMessages(messages)).split("\n")
    expect(lines[0]).toBe("§1§ [user] look at this")
    expect(lines[1]).toMatch(/\[user, inserted\] line one$/)
    expect(lines).toHaveLength(2)
  })

  it("omits the label of a part without a tag", () => {
    const messages = [assistantMessage({ id: "a1", parts: [text("a1t", "done")] })]
    expect(renderEpisodeSource(messages, () => null)).toBe("[assistant] done")
  })

  it.each<[string, number, string]>([
    ["exactly at the limit", SOURCE_OUTPUT_CHARS, "y".repeat(SOURCE_OUTPUT_CHARS)],
    ["one character over", SOURCE_OUTPUT_CHARS + 1, `${"y".repeat(SOURCE_OUTPUT_CHARS)} [... 1 more characters]`],
    ["far over", 10_000, `${"y".repeat(SOURCE_OUTPUT_CHARS)} [... 8000 more characters]`],
  ])("cuts a tool output %s", (_name, length, expected) => {
    const read = tool("t", "read", completed({ filePath: "a.ts" }, "y".repeat(length)))
    const messages = [assistantMessage({ id: "a1", parts: [read] })]
    const lines = renderEpisodeSource(messages, () => 7).split("\n")
    expect(lines).toEqual(['§7§ [tool call] read {"filePath":"a.ts"}', `[tool completed] ${expected}`])
  })

  it("keeps the whole call input however long it is", () => {
    const input = { filePath: "src/a.ts", content: "z".repeat(5_000) }
    const messages = [assistantMessage({ id: "a1", parts: [tool("t", "write", completed(input, "ok"))] })]
    expect(renderEpisodeSource(messages, () => null)).toContain("z".repeat(5_000))
  })
})
