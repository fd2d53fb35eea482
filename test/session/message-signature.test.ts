import { describe, expect, it } from "vitest"
import { finalShape, sameFinalShape } from "../../src/session/message-signature.js"
import type { HostMessage, HostPart } from "../../src/transcript/host-message.js"
import { assistantMessage, completed, failed, freshCopy, mediaFile, reasoning, running, text, tool } from "../helpers/host-messages.js"

const finished = (): HostMessage =>
  assistantMessage({
    id: "msg_a1",
    parts: [
      reasoning("r1", "thinking"),
      text("a1", "answer"),
      tool("t1", "read", completed({ filePath: "a.txt" }, "file body")),
      tool("t2", "bash", failed({ command: "make" }, "make: *** no rule")),
      mediaFile("f1", "a.png"),
    ],
  })

/** The message after `change`, on a fresh copy (the host's next call). */
const changed = (change: (parts: HostPart[]) => void): HostMessage => {
  const [copy] = freshCopy([finished()]) as [HostMessage]
  change(copy.parts)
  return copy
}

const toolState = (part: HostPart | undefined) => {
  if (part?.type !== "tool") throw new Error("not a tool part")
  return part.state
}

describe("the final shape of a message", () => {
  const shape = finalShape(finished()) ?? { role: "none", parts: [] }

  it("is null while a part is not final", () => {
    expect(finalShape(assistantMessage({ id: "msg_r", parts: [text("a", "x"), tool("t", "bash", running())] }))).toBeNull()
    expect(finalShape(finished())).not.toBeNull()
  })

  it("matches a fresh copy of the same message", () => {
    expect(sameFinalShape(shape, freshCopy([finished()])[0] as HostMessage)).toBe(true)
  })

  it.each<[string, (parts: HostPart[]) => void]>([
    ["a part's id", (parts) => void ((parts[1] as HostPart).id = "a2")],
    ["a part's type", (parts) => void (parts[1] = { ...(parts[1] as HostPart), type: "reasoning" } as HostPart)],
    ["a text's length", (parts) => void ((parts[1] as { text: string }).text = "answer!")],
    ["a reasoning's length", (parts) => void ((parts[0] as { text: string }).text = "think")],
    ["a tool's output length", (parts) => void ((toolState(parts[2]) as { output: string }).output = "file body, longer")],
    ["a tool's output pruned by the host", (parts) => void ((toolState(parts[2]) as { time: { compacted?: number } }).time.compacted = 1)],
    ["a failed tool's error length", (parts) => void ((toolState(parts[3]) as { error: string }).error = "make: ok")],
    ["a file's url", (parts) => void ((parts[4] as { url: string }).url += "#2")],
    ["the number of parts", (parts) => void parts.pop()],
  ])("does not match once %s changed", (_what, change) => {
    expect(sameFinalShape(shape, changed(change))).toBe(false)
  })

  it("does not match another role", () => {
    const [copy] = freshCopy([finished()]) as [HostMessage]
    expect(sameFinalShape(shape, { ...copy, info: { ...copy.info, role: "user" } } as HostMessage)).toBe(false)
  })
})
