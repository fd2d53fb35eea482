import { describe, expect, it } from "vitest"
import { buildLiveView } from "../../src/session/live-view.js"
import { KEEP_NEWEST } from "../../src/reduce/plan-reclaim.js"
import { editedFile, planSmartDrops, type SmartDrop } from "../../src/reduce/plan-smart-drops.js"
import type { HostMessage } from "../../src/transcript/host-message.js"
import type { HostToolState as ToolState } from "../../src/transcript/host-message.js"
import { assistantMessage, completed, running, text, tool, userMessage } from "../helpers/host-messages.js"
import { ingestedState, markDropped, toks } from "../helpers/pure-session.js"

function arc(id: string, name: string, input: Record<string, unknown> = {}, state?: ToolState): HostMessage {
  return assistantMessage({ id: `m-${id}`, parts: [tool(id, name, state ?? completed(input, toks(10)))] })
}

/** Plans smart drops over `messages`; the result names part ids instead of tag numbers. */
function plan(
  messages: HostMessage[],
  options: { protectedTokens?: number; dropped?: string[] } = {},
): { partId: string; reason: SmartDrop["reason"]; supersededBy: string | null }[] {
  const state = ingestedState(messages)
  for (const partId of options.dropped ?? []) markDropped(state, partId)
  const view = buildLiveView({ messages, state, protectedTokens: options.protectedTokens ?? 0 })
  const partOf = (tag: number | null): string | null =>
    tag === null ? null : (state.tagsByNumber.get(tag)?.partId ?? null)
  const drops = planSmartDrops(view)
  expect(drops.map((drop) => drop.tag)).toEqual([...drops.map((drop) => drop.tag)].sort((a, b) => a - b))
  return drops.map(
    (drop) => ({ partId: partOf(drop.tag) ?? "?", reason: drop.reason, supersededBy: partOf(drop.supersededBy) }),
  )
}

const smart = (partId: string) => ({ partId, reason: "smart" as const, supersededBy: null })
const superseded = (partId: string, by: string) => ({ partId, reason: "superseded" as const, supersededBy: by })
const last = (): HostMessage => userMessage({ id: "m-end", parts: [text("end", "go on")] })
/** An apply_patch input that updates `files`. */
const patchOf = (...files: string[]): Record<string, unknown> => {
  const hunks = files.flatMap((file) => [`*** Update File: ${file}`, "@@", "-a", "+b"])
  return { patchText: ["*** Begin Patch", ...hunks, "*** End Patch"].join("\n") }
}

describe("planSmartDrops", () => {
  it("keeps only the newest todowrite result", () => {
    expect(plan([arc("t1", "todowrite"), arc("t2", "todowrite"), arc("t3", "todowrite"), last()])).toEqual([
      smart("t1"),
      smart("t2"),
    ])
  })

  it("keeps only the newest three ctx_reduce results", () => {
    const messages = ["r1", "r2", "r3", "r4", "r5"].map((id) => arc(id, "ctx_reduce"))
    expect(plan([...messages, last()])).toEqual([smart("r1"), smart("r2")])
  })

  it.each(Object.entries(KEEP_NEWEST))("keeps the newest %s results, as many as reclaim keeps (%i)", (name, count) => {
    const ids = Array.from({ length: count + 2 }, (_, index) => `k${index}`)
    expect(plan([...ids.map((id) => arc(id, name)), last()])).toEqual([smart("k0"), smart("k1")])
  })

  it.each([
    ["bash_status", {}, true],
    ["bash_kill", {}, true],
    ["ctx_note", { action: "read" }, true],
    ["ctx_note", { action: "dismiss" }, true],
    ["ctx_note", { action: "write" }, false],
    ["ctx_note", {}, false],
    ["bash", {}, false],
  ])("drops a zero-value %s %j result: %s", (name, input, dropped) => {
    expect(plan([arc("z", name, input), last()])).toEqual(dropped ? [smart("z")] : [])
  })

  it.each([
    ["edit", "filePath"],
    ["write", "file_path"],
    ["multiedit", "path"],
  ])("supersedes older %s outputs of the same file (input key %s) by the newest edit", (name, key) => {
    const messages = [
      arc("e1", name, { [key]: "src/a.ts" }),
      arc("other", "edit", { filePath: "src/b.ts" }),
      arc("e2", "edit", { filePath: "src/a.ts" }),
      arc("e3", "write", { filePath: "src/a.ts" }),
      last(),
    ]
    expect(plan(messages)).toEqual([superseded("e1", "e3"), superseded("e2", "e3")])
  })

  // The old list (edit, write, multiedit) missed the other file-writing tools of the host tool table.
  it.each([
    ["Edit", { file_path: "src/a.ts" }],
    ["Write", { file_path: "src/a.ts" }],
    ["create", { path: "src/a.ts" }],
    ["notebookedit", { notebook_path: "src/a.ts" }],
    ["str_replace_editor", { command: "str_replace", path: "src/a.ts" }],
    ["apply_patch", patchOf("src/a.ts")],
    ["patch", { patchText: "--- a/src/a.ts\n+++ b/src/a.ts\n@@ -1 +1 @@\n-a\n+b" }],
  ])("supersedes an older %s %j of the same file, and is superseded by a newer edit", (name, input) => {
    const messages = [
      arc("e1", "edit", { filePath: "src/a.ts" }),
      arc("x", name, input),
      arc("e2", "edit", { filePath: "src/a.ts" }),
      last(),
    ]
    expect(plan(messages)).toEqual([superseded("e1", "e2"), superseded("x", "e2")])
    const newest = [arc("e1", "edit", { filePath: "src/a.ts" }), arc("x", name, input), last()]
    expect(plan(newest)).toEqual([superseded("e1", "x")])
  })

  it("leaves a multi-file patch out: it neither supersedes nor is superseded by an edit of one of its files", () => {
    const messages = [
      arc("e1", "edit", { filePath: "src/a.ts" }),
      arc("p1", "apply_patch", patchOf("src/a.ts", "src/b.ts")),
      arc("e2", "edit", { filePath: "src/b.ts" }),
      arc("p2", "apply_patch", patchOf("src/a.ts", "src/b.ts")),
      last(),
    ]
    expect(plan(messages)).toEqual([])
    const edited = [...messages.slice(0, -1), arc("e3", "edit", { filePath: "src/a.ts" }), last()]
    expect(plan(edited)).toEqual([superseded("e1", "e3")])
  })

  it.each([
    ["apply_patch", { filePath: "src/a.ts" }],
    ["read", { filePath: "src/a.ts" }],
    ["edit", { filePath: "" }],
    ["edit", { filePath: 42 }],
    ["edit", {}],
  ])("does not treat %s %j as an edit of a file", (name, input) => {
    expect(plan([arc("x", name, input), arc("e", "edit", { filePath: "src/a.ts" }), last()])).toEqual([])
  })

  it("honours the protected window, but a protected newest edit still supersedes older ones", () => {
    const messages = [
      arc("e1", "edit", { filePath: "a" }),
      arc("todo1", "todowrite"),
      arc("s1", "bash_status"),
      arc("e2", "edit", { filePath: "a" }),
      arc("todo2", "todowrite"),
      arc("s2", "bash_status"),
    ]
    // Each arc is 10 tokens: a 30-token window protects the last three.
    expect(plan(messages, { protectedTokens: 30 })).toEqual([superseded("e1", "e2"), smart("todo1"), smart("s1")])
    expect(plan(messages, { protectedTokens: 1_000 })).toEqual([])
  })

  it("never drops an unfinished tool, and never drops again what is already dropped", () => {
    const messages = [
      arc("s1", "bash_status", {}, running()),
      arc("s2", "bash_status"),
      arc("todo1", "todowrite"),
      arc("todo2", "todowrite"),
      last(),
    ]
    expect(plan(messages, { dropped: ["s2"] })).toEqual([smart("todo1")])
  })

  it("never touches messages or files", () => {
    const messages = [userMessage({ id: "m1", parts: [text("u1", toks(500))] }), last()]
    expect(plan(messages)).toEqual([])
  })
})

describe("editedFile", () => {
  it("reads the one path of a file-writing call and nothing else", () => {
    const messages = [
      arc("e", "edit", { filePath: "x.ts" }),
      arc("w", "write", { path: "y.ts" }),
      arc("r", "read", { filePath: "z.ts" }),
      arc("p1", "apply_patch", patchOf("p.ts")),
      arc("p2", "apply_patch", patchOf("p.ts", "q.ts")),
      arc("m", "multiedit", { filePath: "m.ts", edits: [{ filePath: "m.ts", oldString: "a", newString: "b" }] }),
    ]
    const view = buildLiveView({ messages, state: ingestedState(messages), protectedTokens: 0 })
    expect(view.items.map((item) => editedFile(item))).toEqual(["x.ts", "y.ts", null, "p.ts", null, "m.ts"])
  })
})
