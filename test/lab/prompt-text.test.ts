import { describe, expect, it } from "vitest"
import { promptText } from "../../src/lab/prompt-text.js"
import {
  assistantMessage,
  completed,
  failed,
  mediaFile,
  reasoning,
  running,
  text,
  tool,
  userMessage,
} from "../helpers/host-messages.js"

const OLD = 'const x = "a"\n'

describe("promptText", () => {
  const messages = [
    userMessage({
      id: "m1",
      parts: [text("p1", 'Keep the "legacy" flag.\nAlways.'), text("p2", "hidden note", { ignored: true })],
    }),
    assistantMessage({
      id: "m2",
      parts: [
        reasoning("p3", "The user wants the flag kept."),
        tool("p4", "edit", completed({ path: "src/a.ts", oldText: OLD, newText: 'const x = "b"\n', line: 12 }, "Edited src/a.ts")),
        tool("p5", "bash", failed({ command: "npm test" }, "Error: 2 failing")),
        tool("p6", "read", running({ path: "src/b.ts" })),
      ],
    }),
    userMessage({ id: "m3", parts: [mediaFile("p7", "screenshot.png")] }),
  ]

  it("shows text, reasoning, decoded tool inputs, outputs, errors, markers and file names", () => {
    expect(promptText(messages)).toMatchInlineSnapshot(`
      "Keep the "legacy" flag.
      Always.
      The user wants the flag kept.
      edit
      12
      const x = "b"

      const x = "a"

      src/a.ts
      Edited src/a.ts
      bash
      npm test
      Error: 2 failing
      read
      src/b.ts
      [Tool execution was interrupted]
      screenshot.png"
    `)
  })

  it("decodes tool inputs, so exact strings with quotes and newlines match", () => {
    const prompt = promptText(messages)
    expect(prompt).toContain('const x = "a"\n')
    expect(prompt).not.toContain('\\"a\\"')
  })

  it("leaves out text the host does not send", () => {
    expect(promptText(messages)).not.toContain("hidden note")
  })

  it("reads a rendered drop marker as the tool's output", () => {
    const marker = tool("p1", "read", completed({ path: "a.ts" }, "[dropped §4§ read output]"))
    const dropped = [assistantMessage({ id: "m1", parts: [marker] })]
    expect(promptText(dropped)).toBe("read\na.ts\n[dropped §4§ read output]")
  })

  it("is empty for an empty prompt", () => {
    expect(promptText([])).toBe("")
  })
})
