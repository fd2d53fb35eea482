import { describe, expect, it } from "vitest"
import { inlinedFileRuns } from "../../src/transcript/inlined-file-runs.js"
import { inlinedFile, mediaFile, syntheticText, text, userMessage } from "../helpers/host-messages.js"

const runIds = (parts: Parameters<typeof userMessage>[0]["parts"]) =>
  Object.fromEntries([...inlinedFileRuns(userMessage({ id: "m1", parts }).parts)].map(([file, run]) => [file, run.map((part) => part.id)]))

describe("inlinedFileRuns", () => {
  it("gives each inlined file the synthetic text parts right before it, in order", () => {
    // OpenCode's shape for "@docs/api.md and @src": the read note and content for each, then its file part.
    expect(
      runIds([
        text("ask", "compare @docs/api.md with @src"),
        inlinedFile("doc", "docs/api.md", ["Called the Read tool with the following input: {\"filePath\":\"docs/api.md\"}", "1: # API"]),
        inlinedFile("dir", "src", ["Called the list tool with the following input: {\"path\":\"src\"}", "src/\n  index.ts"]),
      ]),
    ).toEqual({ doc: ["doc-c0", "doc-c1"], dir: ["dir-c0", "dir-c1"] })
  })

  it("leaves a media file's note to the message, and stops at the first part that is not synthetic text", () => {
    expect(
      runIds([
        syntheticText("note", "Called the Read tool with the following input: shot.png"),
        mediaFile("shot", "shot.png"),
        text("ask", "and this one"),
        inlinedFile("doc", "a.txt", ["1: alpha"]),
        inlinedFile("next", "b.txt", []),
      ]),
    ).toEqual({ doc: ["doc-c0"], next: [] })
  })
})
