import { readFileSync } from "node:fs"
import { fileURLToPath } from "node:url"
import { describe, expect, it } from "vitest"
import { importPi } from "../../src/transcript/importers/pi.js"
import { piBuiltSteps, turnSteps } from "./pi-context-oracle.js"

// A Pi 1.x session written entry by entry in the shapes docs/session-format.md and message-types.md of Pi 1.6 give
// (and the recorded sessions in fixtures/ show), with every entry kind that changes what the model gets: `!` shell
// runs (one excluded with `!!`), extensions' custom_messages (text and an image, shown and hidden), a context_edit
// replacing one and another omitting an assistant message, a branch left with its summary, an older compaction kept
// inside a newer one's range, a system message in the kept range, magic-context's status report, an unknown entry.
const at = (second: number): string => `2026-12-07T09:00:${String(second).padStart(2, "0")}.000Z`
const ms = (second: number): number => Date.parse(at(second))
const usage = { input: 900, output: 40, cacheRead: 0, cacheWrite: 0, reasoning: 0, totalTokens: 940, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } }
const PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=="

function entry(id: string, parentId: string | null, second: number, fields: Record<string, unknown>): string {
  return JSON.stringify({ ...fields, id, parentId, timestamp: at(second) })
}
const message = (id: string, parentId: string, second: number, body: Record<string, unknown>): string =>
  entry(id, parentId, second, { type: "message", message: { ...body, timestamp: ms(second) } })
const assistant = (content: unknown[]): Record<string, unknown> => ({ role: "assistant", content, api: "anthropic-messages", provider: "anthropic", model: "claude-sonnet-4-5", usage, stopReason: "stop" })

const SESSION = [
  JSON.stringify({ type: "session", version: 3, id: "01a3c0de-0000-7000-8000-000000000001", timestamp: at(0), cwd: "/home/dev/src/ci" }),
  entry("e01", null, 1, { type: "model_change", provider: "anthropic", modelId: "claude-sonnet-4-5" }),
  message("e02", "e01", 2, { role: "system", content: "", sections: { preamble: "You are a coding assistant." } }),
  message("e03", "e02", 3, { role: "user", content: [{ type: "text", text: "The nightly job fails on the cache step." }] }),
  message("e04", "e03", 4, assistant([{ type: "thinking", thinking: "Look at the workflow.", thinkingSignature: "sig" }, { type: "toolCall", id: "toolu_1", name: "read", arguments: { path: ".ci/nightly.yml" } }])),
  message("e05", "e04", 5, { role: "toolResult", toolCallId: "toolu_1", toolName: "read", content: [{ type: "text", text: "cache:\n  key: v3-deps" }], isError: false }),
  message("e06", "e05", 6, { role: "bashExecution", command: "git status --short", output: " M .ci/nightly.yml", exitCode: 0, cancelled: false, truncated: false }),
  message("e07", "e06", 7, { role: "bashExecution", command: "make nightly", output: "error: cache key v3-deps not found", exitCode: 2, cancelled: false, truncated: true, fullOutputPath: "/tmp/pi-bash-7.log" }),
  message("e08", "e07", 8, { role: "bashExecution", command: "cat ~/.netrc", output: "machine ci login bot", exitCode: 0, cancelled: false, truncated: false, excludeFromContext: true }),
  entry("e09", "e08", 9, { type: "custom_message", customType: "reminders", content: "REMINDER: the runner image is pinned to ubuntu-22.04.", display: false }),
  entry("e10", "e09", 10, { type: "custom_message", customType: "screenshot", content: [{ type: "text", text: "The failing step, as the CI page shows it:" }, { type: "image", data: PNG, mimeType: "image/png" }], display: true, details: { source: "ci" } }),
  entry("e11", "e10", 11, { type: "context_edit", targetId: "e09", replacement: { content: "REMINDER (edited): the runner image is pinned." } }),
  message("e12", "e11", 12, { role: "user", content: "Try bumping the key to v4." }),
  message("e13", "e12", 13, assistant([{ type: "text", text: "Bumped to v4; the job still fails." }])),
  entry("e14", "e11", 14, { type: "branch_summary", fromId: "e13", summary: "Bumping the cache key to v4 did not help." }),
  message("e15", "e14", 15, { role: "user", content: "Then find where v3-deps is written." }),
  message("e16", "e15", 16, assistant([{ type: "text", text: "It is written by the setup script." }])),
  entry("e17", "e16", 17, { type: "compaction", summary: "OLDER-SUMMARY", firstKeptEntryId: "e03", tokensBefore: 4000 }),
  entry("e18", "e17", 18, { type: "custom_message", customType: "magic-context-status", content: "magic-context status: session …", display: true, details: {} }),
  message("e19", "e18", 19, { role: "user", content: [{ type: "text", text: "Fix it there." }] }),
  message("e20", "e19", 20, assistant([{ type: "toolCall", id: "toolu_2", name: "edit", arguments: { path: "scripts/setup.sh", oldText: "v3-deps", newText: "v4-deps" } }])),
  message("e21", "e20", 21, { role: "toolResult", toolCallId: "toolu_2", toolName: "edit", content: [{ type: "text", text: "Edited scripts/setup.sh" }], isError: false }),
  message("e22", "e21", 22, { role: "system", content: "", sections: { skills: "<skills></skills>" } }),
  entry("e23", "e22", 23, { type: "context_edit", targetId: "e16", replacement: null }),
  entry("e24", "e23", 24, { type: "context_edit", targetId: "e19", replacement: { content: "Fix it in the setup script." } }),
  entry("e25", "e24", 25, { type: "compaction", summary: "## Goal\nFix the nightly cache step.", firstKeptEntryId: "e06", tokensBefore: 9000, systemMessage: { role: "system", content: "", sections: { preamble: "You are a coding assistant." }, timestamp: ms(25) } }),
  message("e26", "e25", 26, { role: "user", content: "Run it again." }),
  message("e27", "e26", 27, assistant([{ type: "text", text: "The nightly job passes." }])),
  entry("e28", "e27", 28, { type: "future_entry", data: {} }),
].join("\n")

describe("importPi on every Pi 1.x entry kind", () => {
  const transcript = importPi(SESSION, { file: "entry-kinds.jsonl" })

  it("gives the blocks Pi 1.6's own buildSessionContext and convertToLlm give, in their order", () => {
    const built = piBuiltSteps(SESSION)
    expect(turnSteps(transcript.turns)).toEqual(built)
    // The oracle itself holds each kind, so the comparison covers them.
    const texts = built.map((step) => step.block).join("\n")
    for (const expected of ["<summary>\n## Goal", "Ran `make nightly`", "Command exited with code 2", "REMINDER (edited)", "[image image/png]", "came back from", "Fix it in the setup script."]) {
      expect(texts).toContain(expected)
    }
  })

  it("reads Pi's own messages as user turns of inserted text, each at its entry's line", () => {
    const byIndex = new Map(transcript.turns.map((turn) => [turn.index, turn]))
    expect(transcript.turns.map((turn) => turn.index)).toEqual([25, 6, 7, 9, 10, 14, 15, 19, 20, 21, 26, 27])
    for (const line of [25, 6, 7, 9, 10, 14]) {
      const turn = byIndex.get(line)
      expect(turn?.role).toBe("user")
      for (const part of turn?.parts ?? []) if (part.type === "text") expect(part.synthetic).toBe(true)
    }
    expect(byIndex.get(6)?.parts).toEqual([{ type: "text", text: "Ran `git status --short`\n```\n M .ci/nightly.yml\n```", synthetic: true }])
    expect(byIndex.get(26)?.parts).toEqual([{ type: "text", text: "Run it again." }])
  })

  it("leaves out the `!!` run, the status report, the omitted message, the older compaction and the branch left", () => {
    const all = JSON.stringify(transcript.turns)
    for (const absent of ["machine ci login bot", "magic-context status", "It is written by the setup script.", "OLDER-SUMMARY", "Bumped to v4"]) {
      expect(all).not.toContain(absent)
    }
  })

  it("counts the entry type it does not know and takes the session's time and model from the entries", () => {
    expect(transcript.skippedRecords).toEqual({ future_entry: 1 })
    expect(transcript.model).toEqual({ providerID: "anthropic", modelID: "claude-sonnet-4-5" })
    expect(transcript.turns.find((turn) => turn.index === 9)?.time).toBe(ms(9))
  })
})

describe("importPi on the synthetic Pi 1.x fixture", () => {
  it("gives what Pi 1.6 builds from it: the extensions' messages, the edits, the `!` run and the compaction as Pi applies them", () => {
    const text = readFileSync(fileURLToPath(new URL("../../fixtures/synthetic/pi-1-oakmoor-retention.jsonl", import.meta.url)), "utf8")
    const built = piBuiltSteps(text)
    expect(turnSteps(importPi(text, { file: "pi-1-oakmoor-retention.jsonl" }).turns)).toEqual(built)
    const texts = built.map((step) => step.block).join("\n")
    for (const expected of ["<summary>\n## Goal", "largest: billing at 48G", "ci-watch: nightly run 4471", "Ran `git log --oneline v2.7.0..HEAD`", "oak-stg-db2"]) expect(texts).toContain(expected)
    for (const absent of ["is queued behind", "AKIA-EXAMPLE-ONLY", "keep_count = 30"]) expect(texts).not.toContain(absent)
  })
})

describe("importPi on older sessions, as Pi 1.6 migrates them on load", () => {
  const line = (second: number, fields: Record<string, unknown>): string => JSON.stringify({ ...fields, timestamp: at(second) })
  const said = (second: number, role: string, text: string): string =>
    line(second, { type: "message", message: role === "user" ? { role, content: text, timestamp: ms(second) } : { ...assistant([{ type: "text", text }]), timestamp: ms(second) } })

  it("keeps a version 1 compaction's range by its firstKeptEntryIndex (a line of the file)", () => {
    const text = [
      JSON.stringify({ type: "session", id: "v1-session", timestamp: at(0), cwd: "/p" }),
      said(1, "user", "Set up the project."),
      said(2, "assistant", "Set up."),
      said(3, "user", "Add the linter."),
      said(4, "assistant", "Added the linter."),
      line(5, { type: "compaction", summary: "Set up the project and added a linter.", firstKeptEntryIndex: 3, tokensBefore: 5000 }),
      said(6, "user", "Now the tests."),
      said(7, "assistant", "Tests added."),
    ].join("\n")
    const transcript = importPi(text, { file: "v1.jsonl" })
    expect(turnSteps(transcript.turns)).toEqual(piBuiltSteps(text))
    expect(transcript.turns.map((turn) => turn.index)).toEqual([5, 3, 4, 6, 7])
  })

  it("reads a version 2 session's hookMessage as the extension's message Pi renames it to", () => {
    const text = [
      JSON.stringify({ type: "session", version: 2, id: "v2-session", timestamp: at(0), cwd: "/p" }),
      JSON.stringify({ type: "message", id: "a1", parentId: null, timestamp: at(1), message: { role: "user", content: "Hi.", timestamp: ms(1) } }),
      JSON.stringify({ type: "message", id: "a2", parentId: "a1", timestamp: at(2), message: { role: "hookMessage", customType: "hook", content: "HOOK-NOTE", display: true, timestamp: ms(2) } }),
      JSON.stringify({ type: "message", id: "a3", parentId: "a2", timestamp: at(3), message: { ...assistant([{ type: "text", text: "Hello." }]), timestamp: ms(3) } }),
    ].join("\n")
    expect(turnSteps(importPi(text, { file: "v2.jsonl" }).turns)).toEqual(piBuiltSteps(text))
    expect(piBuiltSteps(text)).toContainEqual({ role: "user", block: "HOOK-NOTE" })
  })
})
