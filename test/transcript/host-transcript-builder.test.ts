import { describe, expect, it } from "vitest"
import { PRUNED_TOOL_TEXT, type HostMessage } from "../../src/transcript/host-message.js"
import { createHostTranscriptBuilder } from "../../src/transcript/host-transcript-builder.js"
import { importOpencodeExport } from "../../src/transcript/importers/opencode-export.js"
import { partText } from "../../src/transcript/part-content.js"
import type { Transcript, Turn } from "../../src/transcript/turn-model.js"
import { partById } from "../helpers/host-messages.js"
import { PRUNED, prunedSessionExport } from "./pruned-export.js"

const transcript = (
  turns: Turn[],
  model: Transcript["model"] = { providerID: "openai", modelID: "gpt-4" },
): Transcript => ({
  format: "pi",
  file: "/tmp/session.jsonl",
  trajectory: null,
  id: "session-1",
  model,
  system: null,
  turns,
})

const userTurn = (index: number, body: string, time: number | null = 1000 + index): Turn => ({
  index,
  role: "user",
  time,
  parts: [{ type: "text", text: body }],
})

const callTurn = (index: number, callId: string, input: unknown = { command: "ls" }): Turn => ({
  index,
  role: "assistant",
  time: 1000 + index,
  parts: [
    { type: "text", text: "calling" },
    { type: "tool-call", callId, tool: "bash", input },
  ],
})

const resultTurn = (index: number, callId: string, output: string, isError = false): Turn => ({
  index,
  role: "tool",
  time: 1000 + index,
  parts: [{ type: "tool-result", callId, tool: "bash", output, isError }],
})

describe("createHostTranscriptBuilder", () => {
  it("builds user and assistant messages with ids derived from the turn index", () => {
    const builder = createHostTranscriptBuilder(transcript([]), "ses_replay")
    builder.append(userTurn(0, "hello"))
    builder.append(callTurn(3, "c1"))
    const [user, assistant] = builder.snapshot()
    expect(user?.info).toEqual({
      id: "msg_user_0000000",
      sessionID: "ses_replay",
      role: "user",
      time: { created: 1000 },
      agent: "build",
      model: { providerID: "openai", modelID: "gpt-4" },
    })
    expect(user?.parts).toEqual([
      { id: "prt_0000000_000", sessionID: "ses_replay", messageID: "msg_user_0000000", type: "text", text: "hello" },
    ])
    expect(assistant?.info).toMatchObject({
      id: "msg_assistant_0000003",
      role: "assistant",
      parentID: "msg_user_0000000",
      modelID: "gpt-4",
      providerID: "openai",
      time: { created: 1003, completed: 1003 },
    })
    expect(assistant?.parts.map((part) => part.id)).toEqual(["prt_0000003_000", "prt_0000003_001"])
    expect(assistant?.parts[1]).toMatchObject({
      type: "tool",
      callID: "c1",
      tool: "bash",
      state: { status: "running", input: { command: "ls" }, time: { start: 1003 } },
    })
  })

  it("uses the turn index as the time and a placeholder model when the transcript has none", () => {
    const builder = createHostTranscriptBuilder(transcript([], null), "s")
    builder.append(userTurn(4, "hi", null))
    const [user] = builder.snapshot()
    expect(user?.info).toMatchObject({ time: { created: 4 }, model: { providerID: "replay", modelID: "unknown" } })
  })

  it.each([
    [false, { status: "completed", output: "a.txt\n", title: "bash", metadata: {} }],
    [true, { status: "error", error: "a.txt\n" }],
  ])("completes the tool part of the call when the tool turn comes (error: %s)", (isError, expected) => {
    const builder = createHostTranscriptBuilder(transcript([]), "s")
    builder.append(userTurn(0, "list"))
    builder.append(callTurn(1, "c1"))
    builder.append(resultTurn(2, "c1", "a.txt\n", isError))
    const messages = builder.snapshot()
    expect(messages).toHaveLength(2)
    expect(partById(messages, "prt_0000001_001")).toMatchObject({
      type: "tool",
      callID: "c1",
      state: { ...expected, input: { command: "ls" }, time: { start: 1001, end: 1002 } },
    })
  })

  it("completes a call whose result arrives inside a later user or assistant turn", () => {
    const builder = createHostTranscriptBuilder(transcript([]), "s")
    builder.append(callTurn(1, "c1"))
    builder.append({
      index: 2,
      role: "user",
      time: 1002,
      parts: [
        { type: "tool-result", callId: "c1", tool: "bash", output: "done", isError: false },
        { type: "text", text: "thanks" },
      ],
    })
    const messages = builder.snapshot()
    expect(partById(messages, "prt_0000001_001")).toMatchObject({ state: { status: "completed", output: "done" } })
    expect(messages[1]?.parts.map((part) => [part.id, part.type])).toEqual([["prt_0000002_001", "text"]])
  })

  it("turns an orphan result into its own assistant message with a finished tool", () => {
    const builder = createHostTranscriptBuilder(transcript([]), "s")
    builder.append(userTurn(0, "go"))
    builder.append(resultTurn(1, "nobody-called-me", "output"))
    const messages = builder.snapshot()
    expect(messages).toHaveLength(2)
    expect(messages[1]?.info).toMatchObject({
      id: "msg_assistant_0000001",
      role: "assistant",
      parentID: "msg_user_0000000",
    })
    expect(messages[1]?.parts).toEqual([
      {
        id: "prt_0000001_000",
        sessionID: "s",
        messageID: "msg_assistant_0000001",
        type: "tool",
        callID: "nobody-called-me",
        tool: "bash",
        state: {
          status: "completed",
          input: {},
          output: "output",
          title: "bash",
          metadata: {},
          time: { start: 1001, end: 1001 },
        },
      },
    ])
  })

  it("adds no message for a tool turn whose results all belong to earlier calls", () => {
    const builder = createHostTranscriptBuilder(transcript([]), "s")
    builder.append(callTurn(0, "c1"))
    builder.append(resultTurn(1, "c1", "x"))
    expect(builder.snapshot()).toHaveLength(1)
  })

  it("sends what the user typed beside tool results as a user message after them", () => {
    // A Claude Code user record holding a rejected call's result and the text the user sent with it.
    const builder = createHostTranscriptBuilder(transcript([]), "s")
    builder.append(callTurn(1, "c1"))
    builder.append({
      index: 2,
      role: "tool",
      time: 1002,
      parts: [
        { type: "tool-result", callId: "c1", tool: "bash", output: "The user doesn't want to proceed", isError: true },
        { type: "text", text: "use the staging database instead" },
      ],
    })
    builder.append(callTurn(3, "c2"))
    const messages = builder.snapshot()
    expect(messages.map((message) => message.info.id)).toEqual([
      "msg_assistant_0000001",
      "msg_user_0000002",
      "msg_assistant_0000003",
    ])
    expect(partById(messages, "prt_0000001_001")).toMatchObject({ state: { status: "error" } })
    expect(messages[1]?.parts).toEqual([
      { id: "prt_0000002_001", sessionID: "s", messageID: "msg_user_0000002", type: "text", text: "use the staging database instead" },
    ])
    expect(messages[2]?.info).toMatchObject({ parentID: "msg_user_0000002" })
  })

  it("keeps an orphan result and the text beside it in two messages with distinct part ids", () => {
    const builder = createHostTranscriptBuilder(transcript([]), "s")
    builder.append({
      index: 4,
      role: "tool",
      time: 1004,
      parts: [
        { type: "tool-result", callId: "gone", tool: "unknown", output: "late", isError: false },
        { type: "text", text: "and check the logs" },
      ],
    })
    const messages = builder.snapshot()
    expect(messages.map((message) => [message.info.id, message.parts.map((part) => part.id)])).toEqual([
      ["msg_assistant_0000004", ["prt_0000004_000"]],
      ["msg_user_0000004", ["prt_0000004_001"]],
    ])
  })

  it("shows an output the host pruned as pruned only in snapshots after the pruning", () => {
    const exported = importOpencodeExport(prunedSessionExport(), { file: "pruned.json" })
    const builder = createHostTranscriptBuilder(exported, "s")
    const resultText = (messages: HostMessage[]): string => {
      const part = messages.flatMap((message) => message.parts).find((candidate) => candidate.type === "tool" && candidate.callID === "call_6")
      if (part?.type !== "tool") throw new Error("the pruned call is missing")
      return partText(part).content
    }
    let before: HostMessage[] = []
    for (const turn of exported.turns) {
      if (turn.index === PRUNED.nextUser) before = builder.snapshot()
      builder.append(turn)
    }
    const after = builder.snapshot()
    expect(resultText(before)).toContain(PRUNED.exact)
    expect(resultText(after)).toBe(PRUNED_TOOL_TEXT)
    // OpenCode keeps the output in the part and only marks it; the earlier snapshot still has it unmarked.
    const pruned = after.flatMap((message) => message.parts).find((part) => part.type === "tool" && part.callID === "call_6")
    expect(pruned).toMatchObject({ state: { output: expect.stringContaining(PRUNED.exact), time: { compacted: PRUNED.at } } })
    expect(resultText(before)).toContain(PRUNED.exact)
  })

  it("wraps a non-object tool input", () => {
    const builder = createHostTranscriptBuilder(transcript([]), "s")
    builder.append(callTurn(0, "c1", "raw string input"))
    expect(builder.snapshot()[0]?.parts[1]).toMatchObject({ state: { input: { input: "raw string input" } } })
  })

  it("converts text, synthetic text, reasoning and file parts", () => {
    const builder = createHostTranscriptBuilder(transcript([]), "s")
    builder.append({
      index: 0,
      role: "user",
      time: 5,
      parts: [
        { type: "text", text: "content", synthetic: true },
        { type: "file", mime: "text/plain", filename: "a.txt", url: "file:///a.txt" },
      ],
    })
    builder.append({ index: 1, role: "assistant", time: 6, parts: [{ type: "reasoning", text: "hm" }] })
    const messages = builder.snapshot()
    expect(messages[0]?.parts).toEqual([
      {
        id: "prt_0000000_000",
        sessionID: "s",
        messageID: "msg_user_0000000",
        type: "text",
        text: "content",
        synthetic: true,
      },
      {
        id: "prt_0000000_001",
        sessionID: "s",
        messageID: "msg_user_0000000",
        type: "file",
        mime: "text/plain",
        filename: "a.txt",
        url: "file:///a.txt",
      },
    ])
    expect(messages[1]?.parts[0]).toEqual({
      id: "prt_0000001_000",
      sessionID: "s",
      messageID: "msg_assistant_0000001",
      type: "reasoning",
      text: "hm",
      time: { start: 6, end: 6 },
    })
  })

  describe("snapshot", () => {
    const built = () => {
      const builder = createHostTranscriptBuilder(transcript([]), "s")
      builder.append(userTurn(0, "list"))
      builder.append(callTurn(1, "c1"))
      return builder
    }

    it("gives copies the renderer can edit without touching the builder or the next snapshot", () => {
      const builder = built()
      const pristine = JSON.stringify(builder.snapshot())
      const edited = builder.snapshot()
      const [user, assistant] = edited
      const text = user?.parts[0]
      const call = assistant?.parts[1]
      if (text?.type !== "text" || call?.type !== "tool") throw new Error("unexpected parts")
      text.text = "§1§ list"
      call.state = {
        status: "completed",
        input: {},
        output: "edited",
        title: "x",
        metadata: {},
        time: { start: 0, end: 0 },
      }
      user?.parts.splice(0, 0, { id: "inserted", sessionID: "s", messageID: "m", type: "text", text: "§9§" })
      assistant?.parts.pop()
      if (user) user.info.id = "changed"
      edited.pop()
      expect(JSON.stringify(builder.snapshot())).toBe(pristine)
    })

    it("keeps earlier snapshots unchanged when a tool completes later", () => {
      const builder = built()
      const before = builder.snapshot()
      const beforeJson = JSON.stringify(before)
      builder.append(resultTurn(2, "c1", "a.txt"))
      expect(JSON.stringify(before)).toBe(beforeJson)
      expect(partById(before, "prt_0000001_001")).toMatchObject({ state: { status: "running" } })
      expect(partById(builder.snapshot(), "prt_0000001_001")).toMatchObject({ state: { status: "completed" } })
    })

    it("gives the same messages for the same transcript", () => {
      const one = built().snapshot()
      const two = built().snapshot()
      expect(JSON.stringify(one)).toBe(JSON.stringify(two))
    })
  })
})
