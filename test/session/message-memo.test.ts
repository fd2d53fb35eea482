import { describe, expect, it } from "vitest"
import { beginPass, createMessageMemo, currentEntry, type MessageMemoEntry } from "../../src/session/message-memo.js"
import type { HostMessage } from "../../src/transcript/host-message.js"
import { assistantMessage, completed, freshCopy, running, text, tool, userMessage } from "../helpers/host-messages.js"

/** The memo entry a second pass over `second` (after one over `first`) gives the message at `index`. */
function entries(first: HostMessage[], second: HostMessage[]): { before: MessageMemoEntry[]; after: MessageMemoEntry[] } {
  const memo = createMessageMemo()
  beginPass(memo, first)
  const before = first.map((message) => currentEntry(memo, message) as MessageMemoEntry)
  beginPass(memo, second)
  return { before, after: second.map((message) => currentEntry(memo, message) as MessageMemoEntry) }
}

const finished = (output: string): HostMessage =>
  assistantMessage({ id: "a1", parts: [text("a1t", "Reading it."), tool("a1r", "read", completed({ filePath: "src/a.ts" }, output))] })

describe("beginPass", () => {
  it("keeps a finished message's entry for a fresh copy of it", () => {
    const { before, after } = entries([finished("const a = 1")], freshCopy([finished("const a = 1")]))
    expect(after[0]).toBe(before[0])
  })

  it("sees a finished tool's output change size, or the host prune it", () => {
    const grown = entries([finished("const a = 1")], [finished("const a = 12")])
    expect(grown.after[0]).not.toBe(grown.before[0])
    const pruned = finished("const a = 1")
    const state = pruned.parts[1]?.type === "tool" ? pruned.parts[1].state : null
    if (state?.status !== "completed") throw new Error("a completed tool")
    state.time.compacted = 5
    const { before, after } = entries([finished("const a = 1")], [pruned])
    expect(after[0]).not.toBe(before[0])
  })

  it("keeps no signature of a finished message (nor the strings of the copy it came from)", () => {
    const call = assistantMessage({ id: "a3", parts: [tool("a3r", "read", running({ filePath: "src/a.ts" }))] })
    const waiting = entries([call], freshCopy([call]))
    expect(waiting.after[0]).toBe(waiting.before[0])
    expect(waiting.after[0]?.signature).not.toBeNull()
    const { before, after } = entries([finished("const a = 1")], freshCopy([finished("const a = 1")]))
    expect(before[0]?.signature).toBeNull()
    expect(after[0]).toBe(before[0])
  })

  it("keeps the last list when a pass replays it, and copies it before a pass that grows or changes it", () => {
    const session = (output: string): HostMessage[] => [
      userMessage({ id: "u1", parts: [text("u1t", "Read a.ts.")] }),
      finished(output),
      userMessage({ id: "u2", created: 3, parts: [text("u2t", "And again.")] }),
    ]
    const memo = createMessageMemo()
    beginPass(memo, session("const a = 1"))
    const first = memo.list
    beginPass(memo, freshCopy(session("const a = 1")))
    expect(memo.list).toBe(first)
    expect(memo.stable).toBe(3)
    const kept = [...first]
    beginPass(memo, freshCopy(session("const a = 1")).slice(0, 2))
    expect(memo.list).not.toBe(first)
    expect(memo.stable).toBe(2)
    expect(first).toEqual(kept)
    beginPass(memo, session("const a = 12"))
    expect(memo.stable).toBe(1)
    expect(memo.list.map((entry) => entry.index)).toEqual([0, 1, 2])
    expect(memo.list[1]).not.toBe(kept[1])
    expect(memo.list[2]).not.toBe(kept[2])
  })

  it("compares a message with a tool still running by its whole content", () => {
    const call = (path: string): HostMessage => assistantMessage({ id: "a2", parts: [tool("a2r", "read", running({ filePath: path }))] })
    const { before, after } = entries([call("src/a.ts")], [call("src/b.ts")])
    expect(after[0]).not.toBe(before[0])
    const same = entries([call("src/a.ts")], [call("src/a.ts")])
    expect(same.after[0]).toBe(same.before[0])
  })
})
