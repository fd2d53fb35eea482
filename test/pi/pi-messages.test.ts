import { describe, expect, it } from "vitest"
import { applyEdits } from "../../src/session/apply-edits.js"
import type { Edit } from "../../src/session/edit.js"
import { readPiContext, type PiMessage } from "../../src/pi/pi-messages.js"
import type { HostMessage } from "../../src/transcript/host-message.js"

const usage = { input: 900, output: 40, cacheRead: 800, cacheWrite: 0, totalTokens: 940, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0.01 } }
const assistant = (timestamp: number, content: Extract<PiMessage, { role: "assistant" }>["content"]): PiMessage => ({
  role: "assistant",
  content,
  api: "openai-completions",
  provider: "mock",
  model: "mock-model",
  usage,
  stopReason: content.some((block) => block.type === "toolCall") ? "toolUse" : "stop",
  timestamp,
})
const IMAGE = { type: "image" as const, data: "iVBORw0KGgoAAAANSUhEUgAAAAEAAAAB", mimeType: "image/png" }

/** A Pi context with every shape: plain and block user content, thinking, two calls and their results, an image result, and messages the engine passes through. */
function session(): PiMessage[] {
  return [
    { role: "user", content: "Fix the failing parser test in src/parse.ts", timestamp: 1_000 },
    assistant(2_000, [
      { type: "thinking", thinking: "Read the test first.", thinkingSignature: "sig-1" } as never,
      { type: "text", text: "Reading the parser." },
      { type: "toolCall", id: "call_a", name: "read", arguments: { path: "src/parse.ts" } },
      { type: "toolCall", id: "call_b", name: "bash", arguments: { command: "npm test" } },
    ]),
    { role: "toolResult", toolCallId: "call_a", toolName: "read", content: [{ type: "text", text: "export function parse() {}" }], isError: false, timestamp: 2_100 },
    { role: "toolResult", toolCallId: "call_b", toolName: "bash", content: [{ type: "text", text: "1 failing" }, IMAGE], isError: true, timestamp: 2_100 },
    { role: "user", content: [{ type: "text", text: "Here is the screenshot" }, IMAGE], timestamp: 3_000 },
    assistant(4_000, []),
    { role: "toolResult", toolCallId: "call_missing", toolName: "bash", content: [{ type: "text", text: "orphan" }], isError: false, timestamp: 4_100 },
    assistant(5_000, [{ type: "text", text: "Fixed." }]),
  ]
}

const ids = (messages: readonly HostMessage[]): string[] => messages.map((message) => message.info.id)
const rebuiltAfter = (pi: PiMessage[], edits: (messages: HostMessage[]) => Edit[]): PiMessage[] => {
  const context = readPiContext("ses", pi)
  const edited = [...context.messages]
  applyEdits(edited, edits(edited))
  return context.rebuild(edited)
}
const partOf = (messages: readonly HostMessage[], message: number, part: number): { messageId: string; partId: string } => {
  const host = messages[message]
  const found = host?.parts[part]
  if (!host || !found) throw new Error(`no part ${message}/${part}`)
  return { messageId: host.info.id, partId: found.id }
}

describe("readPiContext", () => {
  it("reads user and assistant messages, each tool result folded into its call, and passes the rest through", () => {
    const context = readPiContext("ses", session())
    expect(context.messages.map((message) => message.info.role)).toEqual(["user", "assistant", "user", "assistant"])
    const [, call] = context.messages
    expect(call?.parts.map((part) => part.type)).toEqual(["reasoning", "text", "tool", "tool"])
    const [read, bash] = call!.parts.slice(2) as Extract<HostMessage["parts"][number], { type: "tool" }>[]
    expect(read!.state).toMatchObject({ status: "completed", input: { path: "src/parse.ts" }, output: "export function parse() {}" })
    expect(bash!.state).toMatchObject({ status: "error", error: "1 failing\n[image]" })
    expect(context.messages[2]?.parts.map((part) => part.type)).toEqual(["text", "file"])
    // The odd states pass through silently; only a role Pi does not define is reported.
    expect(context.unknownRoles).toEqual([])
    expect(readPiContext("ses", [{ role: "telemetry", timestamp: 1 } as unknown as PiMessage]).unknownRoles).toEqual(["telemetry"])
    // The provider's usage report is what the engine calibrates against.
    expect(call!.info).toMatchObject({ role: "assistant", tokens: { input: 900, output: 40, cache: { read: 800, write: 0 } } })
  })

  it("gives each message the same id however many messages before it are gone (Pi compacted or changed branch)", () => {
    const whole = readPiContext("ses", session())
    const compacted = readPiContext("ses", [{ role: "compactionSummary", summary: "Shorter.", tokensBefore: 30_000, timestamp: 6_000 } as PiMessage, ...session().slice(4)])
    expect(ids(compacted.messages)).toEqual(["pi_compactionSummary_6000_0", ...ids(whole.messages).slice(2)])
    expect(compacted.messages.slice(1).map((message) => message.parts.map((part) => part.id))).toEqual(whole.messages.slice(2).map((message) => message.parts.map((part) => part.id)))
  })

  it("tells apart messages of one role sent in the same millisecond", () => {
    const context = readPiContext("ses", [
      { role: "user", content: "one", timestamp: 7 },
      { role: "user", content: "two", timestamp: 7 },
    ])
    expect(ids(context.messages)).toEqual(["pi_user_7_0", "pi_user_7_1"])
  })
})

describe("PiContext.rebuild", () => {
  it("gives back Pi's list unchanged when nothing was edited", () => {
    const pi = session()
    const context = readPiContext("ses", pi)
    expect(context.rebuild(context.messages)).toEqual(session())
  })

  it("writes tags where the engine put them: a plain user message stays a string, an image result keeps its image", () => {
    const rebuilt = rebuiltAfter(session(), (messages) => [
      { type: "set-text", ...partOf(messages, 0, 0), text: "§1§ Fix the failing parser test in src/parse.ts" },
      { type: "set-tool-result", ...partOf(messages, 1, 3), text: "§3§ 1 failing\n[image]" },
      { type: "set-text", ...partOf(messages, 2, 0), text: "§4§ Here is the screenshot" },
    ])
    expect(rebuilt[0]).toEqual({ role: "user", content: "§1§ Fix the failing parser test in src/parse.ts", timestamp: 1_000 })
    expect(rebuilt[3]).toMatchObject({ role: "toolResult", toolCallId: "call_b", content: [{ type: "text", text: "§3§ 1 failing" }, IMAGE], isError: true })
    expect(rebuilt[4]).toMatchObject({ role: "user", content: [{ type: "text", text: "§4§ Here is the screenshot" }, IMAGE] })
    // The thinking block keeps its signature.
    expect((rebuilt[1] as Extract<PiMessage, { role: "assistant" }>).content[0]).toEqual({ type: "thinking", thinking: "Read the test first.", thinkingSignature: "sig-1" })
  })

  it("puts a tag before an image that opens a result as a text block of its own", () => {
    const pi: PiMessage[] = [
      { role: "user", content: "look", timestamp: 1 },
      assistant(2, [{ type: "toolCall", id: "c", name: "screenshot", arguments: {} }]),
      { role: "toolResult", toolCallId: "c", toolName: "screenshot", content: [IMAGE], isError: false, timestamp: 3 },
    ]
    const rebuilt = rebuiltAfter(pi, (messages) => [{ type: "set-tool-result", ...partOf(messages, 1, 0), text: "§2§ [image]" }])
    expect(rebuilt[2]).toMatchObject({ content: [{ type: "text", text: "§2§" }, IMAGE] })
  })

  it("adds a reminder after a result the way a tag goes before it: around Pi's blocks, images kept", () => {
    const pi: PiMessage[] = [
      { role: "user", content: "look", timestamp: 1 },
      assistant(2, [{ type: "toolCall", id: "c", name: "screenshot", arguments: {} }]),
      { role: "toolResult", toolCallId: "c", toolName: "screenshot", content: [{ type: "text", text: "the page" }, IMAGE], isError: false, timestamp: 3 },
    ]
    const rebuilt = rebuiltAfter(pi, (messages) => [{ type: "set-tool-result", ...partOf(messages, 1, 0), text: "§2§ the page\n[image]\n\n[magic-context: usage 70%]" }])
    expect(rebuilt[2]).toMatchObject({ content: [{ type: "text", text: "§2§ the page" }, IMAGE, { type: "text", text: "[magic-context: usage 70%]" }] })
  })

  it("replaces a dropped result's content with the engine's marker, images and all", () => {
    const rebuilt = rebuiltAfter(session(), (messages) => [{ type: "set-tool-result", ...partOf(messages, 1, 3), text: "[dropped §3§ bash output]" }])
    expect(rebuilt[3]).toMatchObject({ role: "toolResult", content: [{ type: "text", text: "[dropped §3§ bash output]" }] })
  })

  it("writes a rewritten tool input back as the call's arguments", () => {
    const rebuilt = rebuiltAfter(session(), (messages) => [{ type: "set-tool-input", ...partOf(messages, 1, 2), input: { path: "src/parse.ts", note: "superseded" } }])
    expect((rebuilt[1] as Extract<PiMessage, { role: "assistant" }>).content[2]).toEqual({ type: "toolCall", id: "call_a", name: "read", arguments: { path: "src/parse.ts", note: "superseded" } })
  })

  it("leaves out a folded message with its tool results, keeps what it passed through, and puts the history first", () => {
    const history: HostMessage = { info: { ...readPiContext("ses", session()).messages[0]!.info, id: "mc_history" } as HostMessage["info"], parts: [{ id: "mc_history_0", sessionID: "ses", messageID: "mc_history", type: "text", text: "<session-history>…</session-history>" }] }
    const rebuilt = rebuiltAfter(session(), (messages) => [
      { type: "remove-message", messageId: messages[0]!.info.id },
      { type: "remove-message", messageId: messages[1]!.info.id },
      { type: "insert-message", afterMessageId: null, message: history },
    ])
    expect(rebuilt.map((message) => message.role)).toEqual(["user", "user", "assistant", "toolResult", "assistant"])
    expect(rebuilt[0]).toEqual({ role: "user", content: [{ type: "text", text: "<session-history>…</session-history>" }], timestamp: 1_000 })
  })

  it("puts a message inserted after a tool call after that call's results (the provider wants them adjacent)", () => {
    const reminder = (id: string): HostMessage => ({
      info: { id, sessionID: "ses", role: "user", time: { created: 0 }, agent: "pi", model: { providerID: "mock", modelID: "mock-model" } },
      parts: [{ id: `${id}_0`, sessionID: "ses", messageID: id, type: "text", text: "[magic-context] usage is high" }],
    })
    const rebuilt = rebuiltAfter(session(), (messages) => [
      { type: "insert-message", afterMessageId: messages[1]!.info.id, message: reminder("r1") },
      { type: "insert-message", afterMessageId: messages[3]!.info.id, message: reminder("r2") },
    ])
    expect(rebuilt.map((message) => message.role)).toEqual([
      "user", "assistant", "toolResult", "toolResult", "user", "user", "assistant", "toolResult", "assistant", "user",
    ])
    expect(rebuilt[4]).toEqual({ role: "user", content: [{ type: "text", text: "[magic-context] usage is high" }], timestamp: 3_000 })
  })
})

/** Pi's own kinds of message, which its convertToLlm sends as user text, around one exchange. */
function ownKinds(): PiMessage[] {
  return [
    { role: "compactionSummary", summary: "Earlier: set up the repo.", tokensBefore: 12_000, timestamp: 100 } as PiMessage,
    { role: "user", content: "Fix the failing parser test in src/parse.ts", timestamp: 1_000 },
    assistant(2_000, [{ type: "text", text: "Which branch?" }]),
    { role: "bashExecution", command: "git branch", output: "* main", exitCode: 0, cancelled: false, truncated: false, timestamp: 2_500 } as PiMessage,
    { role: "bashExecution", command: "cat .env", output: "TOKEN=1", exitCode: 0, cancelled: false, truncated: false, excludeFromContext: true, timestamp: 2_600 } as PiMessage,
    { role: "custom", customType: "reminders", content: [{ type: "text", text: "Keep the public API." }, IMAGE], display: false, timestamp: 2_700 } as PiMessage,
    { role: "branchSummary", summary: "Tried a regex parser; too slow.", fromId: "e1", timestamp: 2_800 } as PiMessage,
    assistant(3_000, [{ type: "text", text: "On main." }]),
  ]
}

describe("readPiContext on Pi's own kinds of message", () => {
  it("reads each as a user message of inserted text, the text Pi sends, and passes a `!!` run through", () => {
    const context = readPiContext("ses", ownKinds())
    expect(context.messages.map((message) => [message.info.role, message.parts.map((part) => (part.type === "text" ? part.text : part.type))])).toEqual([
      ["user", ["The conversation history before this point was compacted into the following summary:\n\n<summary>\nEarlier: set up the repo.\n</summary>"]],
      ["user", ["Fix the failing parser test in src/parse.ts"]],
      ["assistant", ["Which branch?"]],
      ["user", ["Ran `git branch`\n```\n* main\n```"]],
      ["user", ["Keep the public API.", "file"]],
      ["user", ["The following is a summary of a branch that this conversation came back from:\n\n<summary>\nTried a regex parser; too slow.</summary>"]],
      ["assistant", ["On main."]],
    ])
    const synthetic = context.messages.map((message) => message.parts.some((part) => part.type === "text" && part.synthetic === true))
    expect(synthetic).toEqual([true, false, false, true, true, true, false])
    expect(context.unknownRoles).toEqual([])
    expect(context.rebuild(context.messages)).toEqual(ownKinds())
  })

  it("writes a tag back: an extension's message keeps its role and image, the others become the user message Pi sends", () => {
    const rebuilt = rebuiltAfter(ownKinds(), (messages) => [
      { type: "set-text", ...partOf(messages, 0, 0), text: `§1§ ${(messages[0]!.parts[0] as { text: string }).text}` },
      { type: "set-text", ...partOf(messages, 3, 0), text: "§4§ Ran `git branch`\n```\n* main\n```" },
      { type: "set-text", ...partOf(messages, 4, 0), text: "§5§ Keep the public API." },
    ])
    expect(rebuilt[0]).toEqual({ role: "user", content: [{ type: "text", text: expect.stringMatching(/^§1§ The conversation history before this point/) }], timestamp: 100 })
    expect(rebuilt[3]).toEqual({ role: "user", content: [{ type: "text", text: "§4§ Ran `git branch`\n```\n* main\n```" }], timestamp: 2_500 })
    expect(rebuilt[4]).toMatchObject({ role: "bashExecution", excludeFromContext: true })
    expect(rebuilt[5]).toEqual({ role: "custom", customType: "reminders", content: [{ type: "text", text: "§5§ Keep the public API." }, IMAGE], display: false, timestamp: 2_700 })
    expect(rebuilt[6]).toEqual(ownKinds()[6])
  })

  it("leaves out one the engine folded into the history", () => {
    const rebuilt = rebuiltAfter(ownKinds(), (messages) => [
      { type: "remove-message", messageId: messages[0]!.info.id },
      { type: "remove-message", messageId: messages[3]!.info.id },
    ])
    expect(rebuilt.map((message) => message.role)).toEqual(["user", "assistant", "bashExecution", "custom", "branchSummary", "assistant"])
  })
})
