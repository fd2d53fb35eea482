import { readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { afterEach, describe, expect, it } from "vitest"
import { REPO_ROOT } from "../e2e/harness/opencode-harness.js"
import { runCliCaptured } from "../helpers/run-cli.js"
import { createTempDirs, createTempHome } from "../helpers/temp-dirs.js"

const PI_SESSION = join(REPO_ROOT, "test", "pi", "fixtures", "pi-1-context-edit.jsonl")

describe("a record type the importer does not read", () => {
  const dirs = createTempDirs()
  afterEach(() => dirs.cleanup())

  it("is skipped, and replay and lab traces say which and how many, on stderr, and still run the session", async () => {
    const home = createTempHome(dirs)
    const lines = readFileSync(PI_SESSION, "utf8").trimEnd().split("\n")
    const last = JSON.parse(lines.at(-1) ?? "{}") as { id: string }
    // A Pi version newer than the importer may append entries of a type it has never seen.
    const future = (id: string, parentId: string) => JSON.stringify({ type: "future_entry", id, parentId, timestamp: "2026-12-06T23:00:00.000Z" })
    const file = join(home.root, "session.jsonl")
    writeFileSync(file, [...lines, future("f0000001", last.id), future("f0000002", "f0000001")].join("\n") + "\n")

    const replay = await runCliCaptured(["replay", file, "--window", "32000"], { env: home.env, cwd: home.root })
    expect(replay.code).toBe(0)
    expect(replay.io.err.join("\n")).toContain("2 records of a type the importer does not read, skipped: future_entry (2)")
    expect(replay.io.out.join("\n")).toMatch(/pi transcript, 5 model calls replayed/)

    const traces = await runCliCaptured(["lab", "traces", file], { env: home.env, cwd: home.root })
    expect(traces.code).toBe(0)
    expect(traces.io.err).toContain(`${file}: 2 records of a type the importer does not read, skipped: future_entry (2)`)
  }, 60_000)
})
