import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { readTranscript } from "../../src/transcript/read-transcript.js"
import { expectPluginError } from "./expect-plugin-error.js"
import { samplePath, tracePath } from "./trace-path.js"

const OPENHANDS = tracePath("openhands-llama4-ponyc.jsonl")
const PI = tracePath("pi-sonnet45-large-session.jsonl")

describe("readTranscript", () => {
  let directory: string
  const write = (name: string, text: string): string => {
    const path = join(directory, name)
    writeFileSync(path, text)
    return path
  }

  beforeAll(() => {
    directory = mkdtempSync(join(tmpdir(), "read-transcript-"))
  })

  afterAll(() => {
    rmSync(directory, { recursive: true, force: true })
  })

  it("detects the format and dispatches", () => {
    const transcript = readTranscript(samplePath("opencode-export.json"))
    expect(transcript.format).toBe("opencode-export")
    expect(transcript.file).toBe(samplePath("opencode-export.json"))
    expect(transcript.turns).toHaveLength(2)
  })

  it("selects an OpenHands trajectory with #N and strips the suffix from the file", () => {
    const transcript = readTranscript(`${OPENHANDS}#2`)
    expect(transcript).toMatchObject({
      format: "openhands",
      file: OPENHANDS,
      trajectory: 2,
      id: "ponylang__ponyc-4588",
    })
    expect(readTranscript(OPENHANDS).trajectory).toBe(0)
  })

  it("reads an opencode export saved with the status line the command printed first, and says it skipped it", () => {
    const exported = readFileSync(samplePath("opencode-export.json"), "utf8")
    const path = write("redirected.json", `Exporting session: ses_4f2a\n${exported}`)
    const transcript = readTranscript(path)
    expect(transcript.format).toBe("opencode-export")
    expect(transcript.turns).toHaveLength(2)
    expect(transcript.skippedLeadingLines).toEqual(["Exporting session: ses_4f2a"])
    expect(readTranscript(samplePath("opencode-export.json"))).not.toHaveProperty("skippedLeadingLines")
  })

  it("keeps a JSONL file's line numbers when it skips lines before the records", () => {
    const pi = readFileSync(PI, "utf8")
    const plain = readTranscript(PI)
    const shifted = readTranscript(write("pi-with-banner.jsonl", `pi 1.6.0\n${pi}`))
    expect(shifted.turns.map((turn) => turn.index)).toEqual(plain.turns.map((turn) => turn.index + 1))
  })

  it("keeps a # that is not followed only by digits as part of the path", () => {
    const path = write("notes#draft.json", JSON.stringify({ info: { id: "ses_x" }, messages: [] }))
    expect(readTranscript(path)).toMatchObject({ format: "opencode-export", file: path, id: "ses_x" })
  })

  it("reports a trajectory beyond the end of the file with the number of trajectories", () => {
    const error = expectPluginError(() => readTranscript(`${OPENHANDS}#5`), "trajectory_out_of_range", [
      `${OPENHANDS}#5`,
      "holds 3",
    ])
    expect(error.data).toMatchObject({ file: OPENHANDS, trajectory: 5, trajectories: 3 })
  })

  it("rejects #N on a single-session format", () => {
    expectPluginError(() => readTranscript(`${PI}#1`), "invalid_argument", [`${PI}#1`, "pi", "single session"])
  })

  it("reports a missing file by name", () => {
    const missing = join(directory, "nope.jsonl")
    const error = expectPluginError(() => readTranscript(missing), "transcript_unreadable", [missing, "no such file"])
    expect(error.data).toMatchObject({ file: missing, errno: "ENOENT" })
  })

  it("reports a directory as unreadable", () => {
    const folder = join(directory, "folder")
    mkdirSync(folder)
    expectPluginError(() => readTranscript(folder), "transcript_unreadable", [folder, "it is a directory"])
  })

  it("reports an unknown format", () => {
    const path = write("notes.txt", "just some notes\n")
    expectPluginError(() => readTranscript(path), "transcript_format_unknown", [path, "unknown transcript format"])
  })

  it("reports a malformed record with the file, record number and problem", () => {
    const header = JSON.stringify({ type: "session", id: "s" })
    const record = JSON.stringify({ type: "message", message: { role: "user" } })
    const path = write("broken.jsonl", [header, record].join("\n"))
    const error = expectPluginError(() => readTranscript(path), "transcript_parse", [
      `${path}: record 1: message.content:`,
    ])
    expect(error.data).toMatchObject({ file: path, record: 1 })
  })
})
