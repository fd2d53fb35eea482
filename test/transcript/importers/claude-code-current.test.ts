import { describe, expect, it } from "vitest"
import { detectFormat } from "../../../src/transcript/detect-format.js"
import { importClaudeCode } from "../../../src/transcript/importers/claude-code.js"
import { attachmentText } from "../../../src/transcript/importers/claude-code-records.js"
import { findInvariantViolations } from "../transcript-summary.js"

/**
 * The records current Claude Code versions (2.1.1xx–2.1.2xx) write besides messages, shaped as those versions write
 * them: titles, modes, the last prompt, and `attachment` records the harness sends with the next model call.
 */
const base = { sessionId: "s2", version: "2.1.210", cwd: "/work/app" }
let uuid = 0
const record = (fields: Record<string, unknown>): string => JSON.stringify({ ...base, uuid: `u${++uuid}`, ...fields })
const user = (content: unknown): string => record({ type: "user", message: { role: "user", content } })
const assistant = (id: string, block: Record<string, unknown>): string =>
  record({ type: "assistant", message: { id, model: "claude-opus-5", role: "assistant", content: [block] } })
const attachment = (fields: Record<string, unknown>): string => record({ type: "attachment", attachment: fields })

const SESSION = [
  JSON.stringify({ type: "permission-mode", permissionMode: "default", sessionId: "s2" }),
  JSON.stringify({ type: "file-history-snapshot", messageId: "m0", snapshot: {} }),
  attachment({ type: "skill_listing", content: "- review: review a diff", skillCount: 1, isInitial: true }),
  attachment({ type: "hook_success", hookName: "SessionStart", hookEvent: "SessionStart", stdout: "ok", exitCode: 0 }),
  user("Rename the settings loader to config_loader; keep the public API."),
  attachment({ type: "hook_additional_context", hookName: "UserPromptSubmit", content: ["Branch: feature/loader", "CI: green"] }),
  JSON.stringify({ type: "custom-title", customTitle: "loader rename", sessionId: "s2" }),
  JSON.stringify({ type: "ai-title", aiTitle: "Rename settings loader", sessionId: "s2" }),
  assistant("m1", { type: "tool_use", id: "c1", name: "Read", input: { file_path: "/work/app/settings.py" } }),
  user([{ type: "tool_result", tool_use_id: "c1", content: "def load(): ..." }]),
  attachment({ type: "queued_command", prompt: "also update the README", commandMode: "prompt" }),
  attachment({ type: "edited_text_file", filename: "/work/app/notes.md", snippet: "12: TODO drop py3.9" }),
  attachment({ type: "deferred_tools_delta", added: ["mcp__db__query"] }),
  assistant("m2", { type: "text", text: "Renaming now; I will also update the README." }),
  JSON.stringify({ type: "mode", mode: "normal", sessionId: "s2" }),
  JSON.stringify({ type: "worktree-state", state: {}, sessionId: "s2" }),
  JSON.stringify({ type: "last-prompt", lastPrompt: "also update the README", sessionId: "s2" }),
].join("\n")

describe("Claude Code's current session records", () => {
  it("are detected as Claude Code although the file opens with records older versions never wrote", () => {
    expect(detectFormat(SESSION, "current.jsonl")).toBe("claude-code")
  })

  it("import: attachments join the turn before the model call they were sent with; bookkeeping is no turn", () => {
    const transcript = importClaudeCode(SESSION, { file: "current.jsonl" })
    expect(findInvariantViolations(transcript)).toEqual([])
    const shape = transcript.turns.map((turn) => [turn.index, turn.role, turn.parts.map((part) => part.type).join(","), turn.mergedRecords ?? []])
    expect(shape).toEqual([
      [4, "user", "text,text", [5]],
      [8, "assistant", "tool-call", []],
      [9, "tool", "tool-result,text,text", [10, 11]],
      [13, "assistant", "text", []],
    ])
    const [prompt, hook] = transcript.turns[0]?.parts ?? []
    expect(prompt).toEqual({ type: "text", text: "Rename the settings loader to config_loader; keep the public API." })
    expect(hook).toEqual({
      type: "text",
      text: "<system-reminder>\nUserPromptSubmit hook additional context: Branch: feature/loader\nCI: green\n</system-reminder>",
      synthetic: true,
    })
    const results = transcript.turns[2]?.parts ?? []
    // The queued message is the user's own words (not synthetic); the edited file is the harness's.
    expect(results[1]).toMatchObject({ type: "text", text: expect.stringContaining("also update the README") })
    expect(results[1]).not.toHaveProperty("synthetic")
    expect(results[2]).toMatchObject({ type: "text", synthetic: true, text: expect.stringContaining("12: TODO drop py3.9") })
  })

  it("counts what it does not read: unknown record types and attachment kinds", () => {
    const transcript = importClaudeCode(SESSION, { file: "current.jsonl" })
    expect(transcript.skippedRecords).toEqual({
      "worktree-state": 1,
      "attachment:skill_listing": 1,
      "attachment:hook_success": 1,
      "attachment:deferred_tools_delta": 1,
    })
  })

  it("attaches a queued message once when both a queue remove and a queued_command attachment name it", () => {
    const queue = (operation: string, content?: string): string =>
      JSON.stringify({ type: "queue-operation", operation, sessionId: "s2", ...(content === undefined ? {} : { content }) })
    for (const order of [
      [queue("remove", "run the tests"), attachment({ type: "queued_command", prompt: "run the tests" })],
      [attachment({ type: "queued_command", prompt: "run the tests" }), queue("remove", "run the tests")],
    ]) {
      const text = [
        user("fix the flaky test"),
        queue("enqueue", "run the tests"),
        assistant("m1", { type: "tool_use", id: "c1", name: "Bash", input: { command: "pytest -x" } }),
        user([{ type: "tool_result", tool_use_id: "c1", content: "1 failed" }]),
        ...order,
        assistant("m2", { type: "text", text: "One failure left." }),
      ].join("\n")
      const turns = importClaudeCode(text, { file: "queued.jsonl" }).turns
      const mentions = JSON.stringify(turns).split("run the tests").length - 1
      expect(mentions).toBe(1)
      expect(turns[2]?.mergedRecords).toEqual([1])
    }
  })

  it("reads nothing from an attachment without text, and refuses no shape", () => {
    expect(attachmentText({ type: "hook_additional_context", content: [] })).toBeNull()
    expect(attachmentText({ type: "file", filename: "a.png", content: { type: "image" } })).toBeNull()
    expect(attachmentText("not an object")).toBeNull()
    expect(attachmentText({ type: "hook_blocking_error", hookName: "PreToolUse", blockingError: { blockingError: "no pushes to main", command: "guard.sh" } }))
      .toEqual({ from: "harness", text: "<system-reminder>\nPreToolUse hook blocking error: no pushes to main\n</system-reminder>" })
    expect(attachmentText({ type: "file", filename: "/w/spec.md", content: { type: "text", file: { filePath: "/w/spec.md", content: "# Spec\nlimit: 5 MB" } } }))
      .toEqual({ from: "harness", text: "<system-reminder>\nContents of /w/spec.md:\n# Spec\nlimit: 5 MB\n</system-reminder>" })
  })
})
