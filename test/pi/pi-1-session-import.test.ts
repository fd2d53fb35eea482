import { readFileSync } from "node:fs"
import { fileURLToPath } from "node:url"
import { describe, expect, it } from "vitest"
import { importPi } from "../../src/transcript/importers/pi.js"
import { readTranscript } from "../../src/transcript/read-transcript.js"
import type { Turn } from "../../src/transcript/turn-model.js"
import { expectPluginError } from "../transcript/expect-plugin-error.js"
import { piBuiltSteps, turnSteps as oracleSteps } from "./pi-context-oracle.js"

// Session files the real Pi 1.6 wrote against the mock with magic-context loaded, and the last request it sent
// (fixtures/record-pi-1-sessions.ts): the importer must give the turns Pi's own projection put in that request.
const fixture = (name: string): string => fileURLToPath(new URL(`./fixtures/${name}`, import.meta.url))
const sessionText = (name: string): string => readFileSync(fixture(`${name}.jsonl`), "utf8")

type ChatMessage = { role: string; content: string | { type: string; text?: string }[] | null; tool_calls?: { id: string; function: { name: string } }[]; tool_call_id?: string }
type Step = { role: string; text: string }

function lastRequest(name: string): ChatMessage[] {
  return JSON.parse(readFileSync(fixture(`${name}.request.json`), "utf8")) as ChatMessage[]
}

/** What a request message carried, its magic-context tag taken off: text, or the calls it made. */
function requestSteps(messages: ChatMessage[]): Step[] {
  return messages.flatMap((message): Step[] => {
    const text = (typeof message.content === "string" ? message.content : (message.content ?? []).map((block) => block.text ?? "").join("")).replace(/^§\d+§ /, "")
    const calls = (message.tool_calls ?? []).map((call) => ({ role: "call", text: `${call.id} ${call.function.name}` }))
    if (message.role === "tool") return [{ role: `result ${message.tool_call_id}`, text }]
    return [...(text === "" ? [] : [{ role: message.role, text }]), ...calls]
  })
}

/** The same for the importer's turns. */
function turnSteps(turns: readonly Turn[]): Step[] {
  return turns.flatMap((turn) =>
    turn.parts.map((part): Step => {
      if (part.type === "tool-call") return { role: "call", text: `${part.callId} ${part.tool}` }
      if (part.type === "tool-result") return { role: `result ${part.callId}`, text: part.output }
      return { role: turn.role, text: part.type === "text" ? part.text : part.type }
    }),
  )
}

describe("importPi on Pi 1.x sessions", () => {
  it("applies context_edit as Pi does: a replaced result carries the replacement, an omitted one is gone", () => {
    const transcript = importPi(sessionText("pi-1-context-edit"), { file: "pi-1-context-edit.jsonl" })
    const results = transcript.turns.flatMap((turn) => turn.parts.filter((part) => part.type === "tool-result"))
    expect(results.map((part) => [part.callId, part.output.slice(0, 26)])).toEqual([
      ["call_1", "A-REPLACED-BY-CONTEXT-EDIT"],
      ["call_3", "FILE-C contents\nFILE-C con"],
    ])
    const all = JSON.stringify(transcript.turns)
    expect(all).not.toContain("FILE-A contents")
    expect(all).not.toContain("FILE-B contents")
    // Pi's system message (its prompt and tools) is not a turn; every entry type here is one Pi 1.x writes.
    expect(transcript.turns[0]).toMatchObject({ role: "user", parts: [{ type: "text", text: "Read a.txt, b.txt and c.txt." }] })
    expect(transcript.skippedRecords).toBeUndefined()
    expect(transcript.model).toEqual({ providerID: "mock", modelID: "mock-model" })
  })

  it("gives the turns of the request Pi sent after the edits, another extension's custom_message among them", () => {
    const transcript = importPi(sessionText("pi-1-context-edit"), { file: "pi-1-context-edit.jsonl" })
    const sent = requestSteps(lastRequest("pi-1-context-edit").filter((message) => message.role !== "system"))
    // The stand-in result Pi's provider layer sends for the call whose result a context_edit omitted is made after the
    // context is built (pi-ai's transformMessages): neither the live `context` event nor a replay has it.
    const standIn = { role: "result call_2", text: "No result provided" }
    expect(sent).toContainEqual(standIn)
    // Another extension's custom_message (display: true) is sent as a user message, and is a user turn of inserted text.
    expect(sent).toContainEqual({ role: "user", text: "NOTE-FROM-ANOTHER-EXTENSION" })
    expect(transcript.turns.find((turn) => JSON.stringify(turn.parts).includes("NOTE-FROM-ANOTHER-EXTENSION"))).toMatchObject({
      role: "user",
      parts: [{ type: "text", text: "NOTE-FROM-ANOTHER-EXTENSION", synthetic: true }],
    })
    // The last turn is the answer to that request.
    expect(turnSteps(transcript.turns.slice(-1))).toEqual([{ role: "assistant", text: "ANSWER-5" }])
    expect(turnSteps(transcript.turns.slice(0, -1))).toEqual(sent.filter((step) => step.role !== standIn.role || step.text !== standIn.text))
    // magic-context's own /ctx-status report (a custom_message shown to the user) never reaches the model, nor a replay.
    expect(JSON.stringify(sent)).not.toContain("magic-context status")
    expect(JSON.stringify(transcript.turns)).not.toContain("magic-context status")
  })

  it("gives what Pi 1.6's own buildSessionContext and convertToLlm build from the recorded sessions", () => {
    for (const name of ["pi-1-context-edit", "pi-1-compaction", "pi-1-bash"]) {
      const text = sessionText(name)
      expect(oracleSteps(importPi(text, { file: `${name}.jsonl` }).turns)).toEqual(piBuiltSteps(text))
    }
  })

  it("reads the user's `!` runs as Pi sent them, tagged live, and leaves out the `!!` one, as Pi did", () => {
    const transcript = importPi(sessionText("pi-1-bash"), { file: "pi-1-bash.jsonl" })
    const request = lastRequest("pi-1-bash")
    // Live, the extension read each run as user text and tagged it (the tag is taken off for the comparison).
    const firstText = (message: ChatMessage): string => (typeof message.content === "string" ? message.content : (message.content?.[0]?.text ?? ""))
    expect(request.filter((message) => message.role === "user").map(firstText)).toEqual([
      expect.stringMatching(/^§1§ Ran `cat notes.txt`/),
      expect.stringMatching(/^§2§ Ran `ls missing-dir`/),
      "§3§ Read a.txt and tell me what the notes say.",
    ])
    expect(turnSteps(transcript.turns.slice(-1))).toEqual([{ role: "assistant", text: "ANSWER-2" }])
    expect(turnSteps(transcript.turns.slice(0, -1))).toEqual(requestSteps(request.filter((message) => message.role !== "system")))
    expect(transcript.turns[1]?.parts).toEqual([{ type: "text", text: expect.stringContaining("Command exited with code 2"), synthetic: true }])
    expect(JSON.stringify(transcript.turns)).not.toContain("SECRET-NOT-FOR-THE-MODEL")
  })

  it("reads Pi's compaction: its summary, in Pi's wrapper, comes first, then the kept range and everything after it", () => {
    const text = sessionText("pi-1-compaction")
    const transcript = importPi(text, { file: "pi-1-compaction.jsonl" })
    const records = text.trim().split("\n").map((line) => JSON.parse(line) as { type: string; id?: string; firstKeptEntryId?: string })
    const compactionAt = records.findIndex((record) => record.type === "compaction")
    const firstKeptAt = records.findIndex((record) => record.id === records[compactionAt]?.firstKeptEntryId)
    expect(compactionAt).toBeGreaterThan(firstKeptAt)
    expect(firstKeptAt).toBeGreaterThan(4)
    const kept = records.flatMap((record, line) => (line >= firstKeptAt && line !== compactionAt && record.type === "message" ? [line] : []))
    expect(transcript.turns.map((turn) => turn.index)).toEqual([compactionAt, ...kept])
    expect(transcript.turns[0]).toMatchObject({ role: "user", parts: [{ type: "text", synthetic: true }] })
    const sent = requestSteps(lastRequest("pi-1-compaction").filter((message) => message.role !== "system"))
    expect(sent[0]?.text).toContain("<summary>\nNo prior history.")
    expect(turnSteps(transcript.turns.slice(-1))).toEqual([{ role: "assistant", text: "ANSWER-7" }])
    expect(turnSteps(transcript.turns.slice(0, -1))).toEqual(sent)
  })

  it("is found as a pi session by its content and read through readTranscript, as replay and show read it", () => {
    for (const name of ["pi-1-context-edit", "pi-1-compaction", "pi-1-bash"]) {
      const transcript = readTranscript(fixture(`${name}.jsonl`))
      expect(transcript.format).toBe("pi")
      expect(transcript.turns).toEqual(importPi(sessionText(name), { file: fixture(`${name}.jsonl`) }).turns)
    }
  })

  it("skips and counts an entry type it does not know, reading the rest as before, also below it in the tree", () => {
    const text = sessionText("pi-1-context-edit")
    const lines = text.trim().split("\n")
    const last = JSON.parse(lines.at(-1)!) as { id: string }
    const beforeLast = JSON.parse(lines.at(-2)!) as { id: string }
    // An unknown entry spliced into the chain before the last message (which now hangs below it), and one as the leaf.
    const inChain = JSON.stringify({ type: "future_entry", id: "f0000001", parentId: beforeLast.id, timestamp: "2026-12-06T22:56:00.000Z", data: {} })
    const lastMessage = lines.at(-1)!.replace(`"parentId":"${beforeLast.id}"`, '"parentId":"f0000001"')
    expect(lastMessage).not.toBe(lines.at(-1))
    const leaf = JSON.stringify({ type: "future_entry", id: "f0000002", parentId: last.id, timestamp: "2026-12-06T22:57:00.000Z", data: {} })
    const transcript = importPi([...lines.slice(0, -1), inChain, lastMessage, leaf].join("\n"), { file: "future.jsonl" })
    expect(transcript.skippedRecords).toEqual({ future_entry: 2 })
    const before = importPi(text, { file: "future.jsonl" }).turns
    // The same turns; the last message moved one line down.
    expect(transcript.turns.map((turn) => turn.parts)).toEqual(before.map((turn) => turn.parts))
    expect(transcript.turns.at(-1)?.index).toBe(before.at(-1)!.index + 1)
  })

  it("follows the active branch of the session tree, not every line of the file", () => {
    const header = JSON.stringify({ type: "session", version: 3, id: "tree", timestamp: "2026-12-06T22:00:00.000Z", cwd: "/p" })
    const message = (id: string, parentId: string | null, role: string, text: string, timestamp: number): string =>
      JSON.stringify({
        type: "message",
        id,
        parentId,
        timestamp: "2026-12-06T22:00:00.000Z",
        message: role === "user" ? { role, content: text, timestamp } : { role, content: [{ type: "text", text }], provider: "mock", model: "m", timestamp },
      })
    const text = [
      header,
      message("u1", null, "user", "first question", 1),
      message("a1", "u1", "assistant", "abandoned answer", 2),
      message("a2", "u1", "assistant", "answer on the branch", 3),
      message("u2", "a2", "user", "follow-up", 4),
    ].join("\n")
    expect(importPi(text, { file: "tree.jsonl" }).turns.map((turn) => [turn.index, turn.parts[0]])).toEqual([
      [1, { type: "text", text: "first question" }],
      [3, { type: "text", text: "answer on the branch" }],
      [4, { type: "text", text: "follow-up" }],
    ])
  })

  it("refuses a context_edit or a compaction it cannot apply, naming the record and what was expected", () => {
    const header = JSON.stringify({ type: "session", version: 3, id: "bad", timestamp: "2026-12-06T22:00:00.000Z", cwd: "/p" })
    const edit = JSON.stringify({ type: "context_edit", id: "e1", parentId: null, timestamp: "2026-12-06T22:00:00.000Z", targetId: "x", replacement: "text" })
    expectPluginError(() => importPi([header, edit].join("\n"), { file: "bad.jsonl" }), "transcript_parse", [
      "bad.jsonl: record 1: ",
      "replacement: expected null or object, received string",
    ])
    const compaction = JSON.stringify({ type: "compaction", id: "c1", parentId: null, timestamp: "2026-12-06T22:00:00.000Z", summary: "s" })
    expectPluginError(() => importPi([header, compaction].join("\n"), { file: "bad.jsonl" }), "transcript_parse", ["bad.jsonl: record 1: firstKeptEntryId"])
  })
})
