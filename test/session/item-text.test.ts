import { describe, expect, it } from "vitest"
import type { TagRecord } from "../../src/session/session-state.js"
import { itemText } from "../../src/session/item-text.js"
import type { HostMessage } from "../../src/transcript/host-message.js"
import {
  assistantMessage,
  completed,
  failed,
  inlinedFile,
  mediaFile,
  reasoning,
  running,
  text,
  tool,
  userMessage,
} from "../helpers/host-messages.js"
import { ingestedState, tagOf } from "../helpers/pure-session.js"

function textOf(message: HostMessage, partId: string): string {
  const tag: TagRecord = tagOf(ingestedState([message]), partId)
  return itemText({ tag, parts: message.parts })
}

describe("itemText", () => {
  it("gives a message's own text parts, not reasoning, ignored or inlined file text", () => {
    const message = userMessage({
      id: "u1",
      parts: [
        text("t1", "Fix the parser."),
        inlinedFile("f1", "notes.txt", ["file line 1", "file line 2"]),
        text("t2", "Keep the API stable."),
        text("t3", "hidden", { ignored: true }),
        text("t4", "a reminder", { synthetic: true }),
      ],
    })
    expect(textOf(message, "t1")).toBe("Fix the parser.\nKeep the API stable.\na reminder")
  })

  it("leaves reasoning out of an assistant message's text", () => {
    const message = assistantMessage({ id: "a1", parts: [reasoning("r1", "private thoughts"), text("t1", "Done.")] })
    expect(textOf(message, "t1")).toBe("Done.")
  })

  it("gives a tool's call and its result", () => {
    const message = assistantMessage({
      id: "a1",
      parts: [
        tool("x1", "bash", completed({ command: "npm test", cwd: "/repo" }, "3 passing")),
        tool("x2", "read", failed({ filePath: "src/a.ts" }, "ENOENT")),
        tool("x3", "bash", running({ command: "sleep 9" })),
      ],
    })
    expect(textOf(message, "x1")).toBe('bash {"command":"npm test","cwd":"/repo"}\n3 passing')
    expect(textOf(message, "x2")).toBe('read {"filePath":"src/a.ts"}\nENOENT')
    expect(textOf(message, "x3")).toBe('bash {"command":"sleep 9"}\n[Tool execution was interrupted]')
  })

  it("gives a file's inlined content", () => {
    const message = userMessage({
      id: "u1",
      parts: [
        text("t1", "see attached"),
        inlinedFile("f1", "notes.txt", ["file line 1", "file line 2"]),
        inlinedFile("f2", "b.txt", ["other"]),
      ],
    })
    expect(textOf(message, "f1")).toBe("file line 1\nfile line 2")
    expect(textOf(message, "f2")).toBe("other")
  })

  it("gives nothing for a media file, which has no text", () => {
    const message = userMessage({ id: "u1", parts: [text("t1", "screenshot:"), mediaFile("m1", "shot.png")] })
    expect(textOf(message, "m1")).toBe("")
  })

  it("gives nothing for a tool whose part is not among the parts given", () => {
    const message = assistantMessage({ id: "a1", parts: [tool("x1", "bash", completed({ command: "ls" }, "a b"))] })
    const tag = tagOf(ingestedState([message]), "x1")
    expect(itemText({ tag, parts: [] })).toBe("")
  })

  it("keeps the text exactly, including tag-like content", () => {
    const message = userMessage({ id: "u1", parts: [text("t1", "  see §3§ and\n\ttabs  ")] })
    expect(textOf(message, "t1")).toBe("  see §3§ and\n\ttabs  ")
  })
})
