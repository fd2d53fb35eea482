import { describe, expect, it } from "vitest"
import { listTrackables } from "../../src/transcript/trackables.js"
import {
  assistantMessage,
  completed,
  failed,
  inlinedFile,
  mediaFile,
  pending,
  reasoning,
  running,
  syntheticText,
  text,
  tool,
  userMessage,
} from "../helpers/host-messages.js"

describe("listTrackables", () => {
  it("tags a message on its first authored text part only", () => {
    const message = userMessage({ id: "msg_1", parts: [text("p1", "hello"), text("p2", "again")] })
    expect(listTrackables(message)).toEqual([
      { kind: "message", partId: "p1", tool: null, render: { type: "text", partId: "p1" } },
    ])
  })

  it.each([
    ["an ignored text part", text("p1", "hidden", { ignored: true })],
    ["an empty text part", text("p1", "")],
  ])("skips %s when choosing the message carrier", (_name, first) => {
    const message = userMessage({ id: "msg_1", parts: [first, text("p2", "visible")] })
    expect(listTrackables(message).map((trackable) => trackable.partId)).toEqual(["p2"])
  })

  it("prefers authored text over a synthetic reminder before it", () => {
    const message = userMessage({
      id: "msg_1",
      parts: [syntheticText("s1", "<system-reminder>plan mode</system-reminder>"), text("p1", "do the thing")],
    })
    expect(listTrackables(message).map((trackable) => trackable.partId)).toEqual(["p1"])
  })

  it("tags a message made only of synthetic text on its first synthetic part", () => {
    const message = userMessage({
      id: "msg_1",
      parts: [syntheticText("s1", "Continue if you have next steps"), syntheticText("s2", "more")],
    })
    expect(listTrackables(message)).toEqual([
      { kind: "message", partId: "s1", tool: null, render: { type: "text", partId: "s1" } },
    ])
  })

  it("gives a message with only reasoning no message tag", () => {
    const message = assistantMessage({ id: "msg_1", parts: [reasoning("r1", "thinking")] })
    expect(listTrackables(message)).toEqual([])
  })

  it.each([
    ["pending", pending({ path: "a" })],
    ["running", running({ path: "a" })],
    ["completed", completed({ path: "a" }, "out")],
    ["error", failed({ path: "a" }, "boom")],
  ])("tracks a %s tool part on its output", (_status, state) => {
    const message = assistantMessage({ id: "msg_1", parts: [tool("t1", "read", state)] })
    expect(listTrackables(message)).toEqual([
      { kind: "tool", partId: "t1", tool: "read", render: { type: "tool-output", partId: "t1" } },
    ])
  })

  it("lists every tool part in part order after the message carrier", () => {
    const message = assistantMessage({
      id: "msg_1",
      parts: [
        reasoning("r1", "plan"),
        text("a1", "I will read two files"),
        tool("t1", "read", completed({ path: "a" }, "A")),
        text("a2", "and then"),
        tool("t2", "bash", running({ command: "ls" })),
      ],
    })
    expect(listTrackables(message).map((trackable) => [trackable.kind, trackable.partId, trackable.tool])).toEqual([
      ["message", "a1", null],
      ["tool", "t1", "read"],
      ["tool", "t2", "bash"],
    ])
  })

  it("puts a text file's tag on the first synthetic part of its content run", () => {
    const message = userMessage({
      id: "msg_1",
      parts: [text("u1", "look at this"), inlinedFile("f1", "a.txt", ["Called read", "line 1\nline 2"])],
    })
    expect(listTrackables(message)).toEqual([
      { kind: "message", partId: "u1", tool: null, render: { type: "text", partId: "u1" } },
      { kind: "file", partId: "f1", tool: null, render: { type: "text", partId: "f1-c0" } },
    ])
  })

  it("never takes a file's content run as the message carrier", () => {
    const message = userMessage({ id: "msg_1", parts: [inlinedFile("f1", "a.txt", ["content"]), text("u1", "after")] })
    expect(listTrackables(message).map((trackable) => [trackable.kind, trackable.partId, trackable.render])).toEqual([
      ["file", "f1", { type: "text", partId: "f1-c0" }],
      ["message", "u1", { type: "text", partId: "u1" }],
    ])
  })

  it("keeps two adjacent text files' runs apart", () => {
    const message = userMessage({
      id: "msg_1",
      parts: [inlinedFile("f1", "a.txt", ["a0", "a1"]), inlinedFile("f2", "b.txt", ["b0", "b1"])],
    })
    expect(listTrackables(message).map((trackable) => trackable.render)).toEqual([
      { type: "text", partId: "f1-c0" },
      { type: "text", partId: "f2-c0" },
    ])
  })

  it.each([
    ["a media file", mediaFile("f1", "shot.png")],
    ["a text file without content parts", (owner: { sessionID: string; messageID: string }) => ({
      id: "f1",
      ...owner,
      type: "file" as const,
      mime: "text/plain",
      filename: "empty.txt",
      url: "file:///empty.txt",
    })],
  ])("inserts a tag part before %s", (_name, file) => {
    const message = userMessage({ id: "msg_1", parts: [text("u1", "see"), file] })
    expect(listTrackables(message)[1]).toEqual({
      kind: "file",
      partId: "f1",
      tool: null,
      render: { type: "before-file", partId: "f1" },
    })
  })

  it("does not treat synthetic text before a media file as its content", () => {
    const message = userMessage({ id: "msg_1", parts: [syntheticText("s1", "reminder"), mediaFile("f1", "shot.png")] })
    expect(listTrackables(message)).toEqual([
      { kind: "message", partId: "s1", tool: null, render: { type: "text", partId: "s1" } },
      { kind: "file", partId: "f1", tool: null, render: { type: "before-file", partId: "f1" } },
    ])
  })

  it("treats a directory attachment like a text file", () => {
    const message = userMessage({
      id: "msg_1",
      parts: [
        syntheticText("d1-c0", "listing"),
        (owner) => ({
          id: "d1",
          ...owner,
          type: "file",
          mime: "application/x-directory",
          filename: "src",
          url: "file:///src",
        }),
      ],
    })
    expect(listTrackables(message)).toEqual([
      { kind: "file", partId: "d1", tool: null, render: { type: "text", partId: "d1-c0" } },
    ])
  })
})
