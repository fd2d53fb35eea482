import { describe, expect, it } from "vitest"
import type { TagRecord } from "../../src/session/session-state.js"
import { compactToolInput, dropMarker, editedPath, itemLabel, KEPT_INPUT_CHARS } from "../../src/render/markers.js"
import type { HostPart } from "../../src/transcript/host-message.js"
import { newTag } from "../helpers/ingest-plan-builder.js"

const tag = (overrides: Partial<TagRecord> = {}): TagRecord => ({
  ...newTag({
    tag: 5,
    partId: "p5",
    messageId: "m1",
    kind: "tool",
    tool: "read",
    status: "dropped",
    droppedReason: "reduce",
  }),
  ...overrides,
})

const toolPart = (name: string, input: Record<string, unknown>): HostPart => ({
  id: "p5",
  sessionID: "s",
  messageID: "m1",
  type: "tool",
  callID: "c",
  tool: name,
  state: { status: "completed", input, output: "x", title: "", metadata: {}, time: { start: 1, end: 2 } },
})

describe("dropMarker", () => {
  it.each<[string, Partial<TagRecord>, string, boolean, string | null, string]>([
    ["a tool output", {}, "read output", true, null, "[dropped §5§ read output]"],
    ["a tool output without visible tags", {}, "read output", false, null, "[dropped read output]"],
    ["a message", { kind: "message", tool: null }, "message", true, null, "[dropped §5§ message]"],
    ["a file", { kind: "file", tool: null }, "file notes.txt", true, null, "[dropped §5§ file notes.txt]"],
    ["a reclaimed output", { droppedReason: "reclaim" }, "bash output", true, null, "[dropped §5§ bash output]"],
    [
      "a superseded edit",
      { tool: "edit", droppedReason: "superseded", supersededBy: 9 },
      "edit output",
      true,
      "src/x.ts",
      "[superseded §5§ edit output of src/x.ts; the newest edit of it is §9§]",
    ],
    [
      "a superseded edit without visible tags",
      { tool: "edit", droppedReason: "superseded", supersededBy: 9 },
      "edit output",
      false,
      "src/x.ts",
      "[superseded edit output of src/x.ts]",
    ],
    [
      "a superseded edit whose path is unknown",
      { tool: "edit", droppedReason: "superseded", supersededBy: 9 },
      "edit output",
      true,
      null,
      "[superseded §5§ edit output; the newest edit of it is §9§]",
    ],
    [
      "a superseded drop that names no newer edit",
      { tool: "edit", droppedReason: "superseded", supersededBy: null },
      "edit output",
      true,
      "src/x.ts",
      "[dropped §5§ edit output]",
    ],
  ])("marks %s", (_name, overrides, label, tagsVisible, supersededPath, marker) => {
    expect(dropMarker({ tag: tag(overrides), label, tagsVisible, supersededPath })).toBe(marker)
  })

  it("is a pure function of its inputs", () => {
    const options = { tag: tag(), label: "read output", tagsVisible: true, supersededPath: null }
    expect(dropMarker(options)).toBe(dropMarker(structuredClone(options)))
  })
})

describe("itemLabel", () => {
  it.each<[Partial<TagRecord>, string | null, string]>([
    [{ kind: "tool", tool: "grep" }, null, "grep output"],
    [{ kind: "tool", tool: null }, null, "tool output"],
    [{ kind: "file", tool: null }, "shot.png", "file shot.png"],
    [{ kind: "file", tool: null }, null, "file"],
    [{ kind: "message", tool: null }, "ignored.txt", "message"],
  ])("labels %j (file name %j) as %j", (overrides, filename, label) => {
    expect(itemLabel(tag(overrides), filename)).toBe(label)
  })
})

describe("editedPath", () => {
  it.each<[string, HostPart | undefined, string | null]>([
    ["filePath", toolPart("edit", { filePath: "a.ts", oldString: "x" }), "a.ts"],
    ["file_path", toolPart("write", { file_path: "b.ts" }), "b.ts"],
    ["path", toolPart("read", { path: "c.ts" }), "c.ts"],
    ["filePath before path", toolPart("edit", { path: "d.ts", filePath: "e.ts" }), "e.ts"],
    ["a non-string path", toolPart("edit", { filePath: 7 }), null],
    ["an empty path", toolPart("edit", { filePath: "" }), null],
    ["notebook_path", toolPart("NotebookEdit", { notebook_path: "n.ipynb" }), "n.ipynb"],
    ["a patch's first file", toolPart("apply_patch", { patchText: "*** Update File: f.ts\n*** Add File: g.ts\n+b" }), "f.ts"],
    ["no path", toolPart("bash", { command: "ls" }), null],
    ["a text part", { id: "t", sessionID: "s", messageID: "m", type: "text", text: "a.ts" }, null],
    ["no part", undefined, null],
  ])("reads %s", (_name, part, path) => {
    expect(editedPath(part)).toBe(path)
  })
})

describe("compactToolInput", () => {
  it("keeps values up to 120 characters and notes the size of longer ones", () => {
    expect(KEPT_INPUT_CHARS).toBe(120)
    const long = "x".repeat(121)
    const nested = { lines: Array.from({ length: 60 }, (_, index) => index) }
    expect(
      compactToolInput({
        filePath: "src/a.ts",
        exact: "y".repeat(120),
        oldString: long,
        newString: "z".repeat(5_000),
        nested,
        small: { a: 1 },
        list: ["a", "b"],
        count: 3,
        flag: true,
        none: null,
      }),
    ).toEqual({
      filePath: "src/a.ts",
      exact: "y".repeat(120),
      oldString: "[121 chars dropped]",
      newString: "[5000 chars dropped]",
      nested: `[${JSON.stringify(nested).length} chars dropped]`,
      small: { a: 1 },
      list: ["a", "b"],
      count: 3,
      flag: true,
      none: null,
    })
  })

  it("returns a new object and leaves the input alone", () => {
    const input = { content: "w".repeat(200) }
    const compact = compactToolInput(input)
    expect(compact).not.toBe(input)
    expect(input.content).toHaveLength(200)
  })

  it("keeps key order", () => {
    expect(Object.keys(compactToolInput({ b: "x".repeat(500), a: 1, c: "y" }))).toEqual(["b", "a", "c"])
  })
})
